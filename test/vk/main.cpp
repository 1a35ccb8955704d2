// Runs the Vulkan runtime tests on lavapipe (Mesa's CPU driver) unless the
// caller already chose a driver through VK_DRIVER_FILES: it must be set before
// the loader is first used, i.e. before the first Session.
#include <cstdlib>
#include <gtest/gtest.h>

int main(int argc, char **argv) {
#ifdef TRACT_VK_TEST_ICD
  setenv("VK_DRIVER_FILES", TRACT_VK_TEST_ICD, /*overwrite=*/0);
#endif
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
