#include "tract/rt/io/npy.h"

#include "test_util.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

namespace rt = tract::rt;

namespace {

const char *kPython = "/usr/bin/python3";

class Npy : public tract_test::TempDirTest {
protected:

  static bool have_numpy() {
    static const int ok = std::system(
        (std::string(kPython) + " -c 'import numpy' >/dev/null 2>&1").c_str());
    return ok == 0;
  }
  // Runs a python snippet in the test directory; returns its exit status.
  int python(const std::string &code) const {
    const std::string script = path("script.py");
    std::ofstream(script) << "import numpy as np, os\nos.chdir(" << '"' << dir_
                          << '"' << ")\n"
                          << code << "\n";
    return std::system((std::string(kPython) + " '" + script + "'").c_str());
  }

};

} // namespace

TEST_F(Npy, RoundTripInCpp) {
  const int64_t shape[] = {2, 3, 4};
  float data[24];
  for (int i = 0; i < 24; ++i)
    data[i] = float(i) * 0.25f - 1.f;
  ASSERT_TRUE(
      rt::npy_write(path("a.npy").c_str(), "f4", 3, shape, data, sizeof(data)));
  rt::NpyArray a;
  char err[256] = "";
  ASSERT_TRUE(rt::npy_read(path("a.npy").c_str(), &a, err, sizeof(err))) << err;
  EXPECT_STREQ(a.dtype, "f4");
  ASSERT_EQ(a.rank, 3);
  EXPECT_EQ(a.shape[0], 2);
  EXPECT_EQ(a.shape[1], 3);
  EXPECT_EQ(a.shape[2], 4);
  ASSERT_EQ(a.bytes, sizeof(data));
  EXPECT_EQ(std::memcmp(a.data, data, sizeof(data)), 0);
  rt::npy_free(&a);
  EXPECT_EQ(a.data, nullptr);

  // Rank 0 and empty arrays.
  const int64_t one = 7;
  ASSERT_TRUE(rt::npy_write(path("s.npy").c_str(), "i8", 0, nullptr, &one, 8));
  ASSERT_TRUE(rt::npy_read(path("s.npy").c_str(), &a, err, sizeof(err))) << err;
  EXPECT_EQ(a.rank, 0);
  EXPECT_EQ(*static_cast<int64_t *>(a.data), 7);
  rt::npy_free(&a);
  const int64_t empty_shape[] = {3, 0};
  ASSERT_TRUE(
      rt::npy_write(path("e.npy").c_str(), "u1", 2, empty_shape, nullptr, 0));
  ASSERT_TRUE(rt::npy_read(path("e.npy").c_str(), &a, err, sizeof(err))) << err;
  EXPECT_EQ(a.bytes, 0u);
  EXPECT_EQ(a.shape[1], 0);
  EXPECT_NE(a.data, nullptr);
  rt::npy_free(&a);
  // The header is padded to a multiple of 64 bytes.
  std::ifstream f(path("a.npy"), std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(f)),
                  std::istreambuf_iterator<char>());
  EXPECT_EQ((all.size() - sizeof(data)) % 64, 0u);
  EXPECT_EQ(all[all.size() - sizeof(data) - 1], '\n');
}

TEST_F(Npy, RejectsBadInput) {
  rt::NpyArray a;
  char err[256] = "";
  EXPECT_FALSE(rt::npy_read(path("missing.npy").c_str(), &a, err, sizeof(err)));
  EXPECT_NE(std::strstr(err, "cannot open"), nullptr);
  EXPECT_EQ(a.data, nullptr);
  std::ofstream(path("junk.npy")) << "not numpy at all";
  EXPECT_FALSE(rt::npy_read(path("junk.npy").c_str(), &a, err, sizeof(err)));
  // Hand-written headers: big-endian, Fortran order, truncated data.
  auto write_raw = [&](const std::string &name, const std::string &dict,
                       size_t data_bytes) {
    std::ofstream(path(name), std::ios::binary)
        << tract_test::npy_v1(dict, std::string(data_bytes, '\0'));
  };
  write_raw("be.npy",
            "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8);
  EXPECT_FALSE(rt::npy_read(path("be.npy").c_str(), &a, err, sizeof(err)));
  EXPECT_NE(std::strstr(err, "big-endian"), nullptr) << err;
  write_raw("fo.npy",
            "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", 24);
  EXPECT_FALSE(rt::npy_read(path("fo.npy").c_str(), &a, err, sizeof(err)));
  EXPECT_NE(std::strstr(err, "fortran"), nullptr) << err;
  write_raw("fo1.npy",
            "{'descr': '<f4', 'fortran_order': True, 'shape': (1, 3), }", 12);
  EXPECT_TRUE(rt::npy_read(path("fo1.npy").c_str(), &a, err, sizeof(err)))
      << err; // same layout
  rt::npy_free(&a);
  write_raw("tr.npy",
            "{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }", 12);
  EXPECT_FALSE(rt::npy_read(path("tr.npy").c_str(), &a, err, sizeof(err)));
  EXPECT_NE(std::strstr(err, "truncated"), nullptr) << err;
  EXPECT_EQ(a.data, nullptr);
  write_raw("long.npy",
            "{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }", 20);
  EXPECT_FALSE(rt::npy_read(path("long.npy").c_str(), &a, err, sizeof(err)));
  EXPECT_NE(std::strstr(err, "more data than its shape holds"), nullptr) << err;
  EXPECT_EQ(a.data, nullptr);
  // Byte-order marks '|' and '>' are fine for one-byte types.
  write_raw("b1.npy",
            "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", 3);
  EXPECT_TRUE(rt::npy_read(path("b1.npy").c_str(), &a, err, sizeof(err)))
      << err;
  EXPECT_STREQ(a.dtype, "b1");
  rt::npy_free(&a);
  // Writer argument checks.
  const int64_t s = 3;
  const float d[3] = {};
  EXPECT_FALSE(rt::npy_write(path("x.npy").c_str(), "f4", 1, &s, d,
                             8)); // wrong byte count
  EXPECT_FALSE(rt::npy_write(path("x.npy").c_str(), "zz", 1, &s, d, 12));
}

TEST_F(Npy, ReadsWhatNumpyWrites) {
  if (!have_numpy())
    GTEST_SKIP() << "no numpy for " << kPython;
  ASSERT_EQ(
      python(
          "np.save('f.npy', np.arange(24, dtype='<f4').reshape(2, 3, 4) / 8)\n"
          "np.save('i.npy', np.array([[-1, 2**40], [3, -2**62]], "
          "dtype=np.int64))\n"
          "np.save('b.npy', np.array([True, False, True]))\n"
          "np.save('u.npy', np.arange(5, dtype=np.uint8))\n"
          "np.save('h.npy', np.arange(3, dtype=np.int16))\n"
          "np.save('s.npy', np.float64(2.5))\n"
          "np.save('z.npy', np.zeros((0, 4), dtype=np.float32))\n"
          "np.save('fo.npy', np.asfortranarray(np.ones((2, 2), "
          "dtype=np.float32)))\n"
          "np.save('big.npy', np.zeros((1,) * 8, dtype=np.uint16))\n"
          "from numpy.lib import format as F\n"
          "with open('v2.npy', 'wb') as f:\n"
          "    F.write_array(f, np.arange(6, dtype='<i4').reshape(3, 2), "
          "version=(2, 0))\n"),
      0);
  rt::NpyArray a;
  char err[256] = "";
  ASSERT_TRUE(rt::npy_read(path("f.npy").c_str(), &a, err, sizeof(err))) << err;
  EXPECT_STREQ(a.dtype, "f4");
  ASSERT_EQ(a.rank, 3);
  EXPECT_EQ(a.shape[2], 4);
  ASSERT_EQ(a.bytes, 24 * 4u);
  for (int i = 0; i < 24; ++i)
    ASSERT_EQ(static_cast<float *>(a.data)[i], float(i) / 8.f);
  rt::npy_free(&a);

  ASSERT_TRUE(rt::npy_read(path("i.npy").c_str(), &a, err, sizeof(err))) << err;
  EXPECT_STREQ(a.dtype, "i8");
  const int64_t *iv = static_cast<int64_t *>(a.data);
  EXPECT_EQ(iv[1], int64_t(1) << 40);
  EXPECT_EQ(iv[3], -(int64_t(1) << 62));
  rt::npy_free(&a);

  ASSERT_TRUE(rt::npy_read(path("b.npy").c_str(), &a, err, sizeof(err))) << err;
  EXPECT_STREQ(a.dtype, "b1");
  EXPECT_EQ(static_cast<unsigned char *>(a.data)[0], 1);
  EXPECT_EQ(static_cast<unsigned char *>(a.data)[1], 0);
  rt::npy_free(&a);

  ASSERT_TRUE(rt::npy_read(path("u.npy").c_str(), &a, err, sizeof(err))) << err;
  EXPECT_STREQ(a.dtype, "u1");
  EXPECT_EQ(static_cast<unsigned char *>(a.data)[4], 4);
  rt::npy_free(&a);

  ASSERT_TRUE(rt::npy_read(path("h.npy").c_str(), &a, err, sizeof(err))) << err;
  EXPECT_STREQ(a.dtype, "i2");
  EXPECT_EQ(static_cast<int16_t *>(a.data)[2], 2);
  rt::npy_free(&a);

  ASSERT_TRUE(rt::npy_read(path("s.npy").c_str(), &a, err, sizeof(err))) << err;
  EXPECT_EQ(a.rank, 0);
  EXPECT_EQ(*static_cast<double *>(a.data), 2.5);
  rt::npy_free(&a);

  ASSERT_TRUE(rt::npy_read(path("z.npy").c_str(), &a, err, sizeof(err))) << err;
  EXPECT_EQ(a.rank, 2);
  EXPECT_EQ(a.shape[0], 0);
  EXPECT_EQ(a.bytes, 0u);
  rt::npy_free(&a);

  EXPECT_FALSE(rt::npy_read(path("fo.npy").c_str(), &a, err, sizeof(err)));

  ASSERT_TRUE(rt::npy_read(path("big.npy").c_str(), &a, err, sizeof(err)))
      << err;
  EXPECT_EQ(a.rank, 8);
  rt::npy_free(&a);

  ASSERT_TRUE(rt::npy_read(path("v2.npy").c_str(), &a, err, sizeof(err)))
      << err;
  EXPECT_EQ(a.shape[0], 3);
  EXPECT_EQ(static_cast<int32_t *>(a.data)[5], 5);
  rt::npy_free(&a);
}

TEST_F(Npy, NumpyReadsWhatWeWrite) {
  if (!have_numpy())
    GTEST_SKIP() << "no numpy for " << kPython;
  const int64_t s3[] = {2, 1, 3};
  const double d[6] = {0.5, -1, 2, 1e300, -0.0, 7};
  ASSERT_TRUE(rt::npy_write(path("d.npy").c_str(), "f8", 3, s3, d, sizeof(d)));
  const int64_t s1[] = {4};
  const bool b[4] = {true, false, false, true};
  ASSERT_TRUE(rt::npy_write(path("b.npy").c_str(), "b1", 1, s1, b, sizeof(b)));
  const int32_t i = -42;
  ASSERT_TRUE(
      rt::npy_write(path("i.npy").c_str(), "i4", 0, nullptr, &i, sizeof(i)));
  const int64_t s2[] = {0, 5};
  ASSERT_TRUE(rt::npy_write(path("e.npy").c_str(), "u2", 2, s2, nullptr, 0));
  EXPECT_EQ(
      python("d = np.load('d.npy')\n"
             "assert d.dtype == np.float64 and d.shape == (2, 1, 3), (d.dtype, "
             "d.shape)\n"
             "assert d.ravel().tolist() == [0.5, -1, 2, 1e300, -0.0, 7]\n"
             "b = np.load('b.npy')\n"
             "assert b.dtype == np.bool_ and b.tolist() == [True, False, "
             "False, True]\n"
             "i = np.load('i.npy')\n"
             "assert i.dtype == np.int32 and i.shape == () and int(i) == -42\n"
             "e = np.load('e.npy')\n"
             "assert e.dtype == np.uint16 and e.shape == (0, 5)\n"),
      0);
}
