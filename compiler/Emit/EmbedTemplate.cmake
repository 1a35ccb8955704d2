# Writes OUTPUT: a C++ file defining `const char *const VAR` with INPUT's text.
file(READ "${INPUT}" text)
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT} by EmbedTemplate.cmake.\n"
  "namespace mlir::tract {\nextern const char *const ${VAR};\n"
  "const char *const ${VAR} = R\"tract_template(${text})tract_template\";\n}\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
