"""How a result file's name tells its message: the writers (opinfo/) and the store (tools/store/) share it."""

OPINFO_SUFFIX = ".opinfo.pb"  # an OpInfoResult; every other `.pb` is a ModelResult
OPINFO_TEXT_SUFFIX = ".opinfo.txtpb"  # its text copy
