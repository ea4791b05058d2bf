# embed_file.cmake: turns one file into a C byte array so the binary carries
# it (the OpenAPI description). Run with -DIN=file -DOUT=file.c -DNAME=symbol.
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" hexlen)
math(EXPR len "${hexlen} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
set(src "/* Generated from ${IN} by server/embed_file.cmake. Do not edit. */\n")
string(APPEND src "const char ${NAME}[] = {${bytes}0x00};\n")
string(APPEND src "const unsigned long ${NAME}_len = ${len};\n")
file(WRITE "${OUT}.tmp" "${src}")
file(RENAME "${OUT}.tmp" "${OUT}")
