"""Offline stand-in for @rules_cc: forwards each rule to its native twin."""

def cc_binary(**kwargs):
    getattr(native, "cc_binary")(**kwargs)

def cc_library(**kwargs):
    getattr(native, "cc_library")(**kwargs)

def cc_test(**kwargs):
    getattr(native, "cc_test")(**kwargs)

def cc_import(**kwargs):
    getattr(native, "cc_import")(**kwargs)

def objc_library(**kwargs):
    getattr(native, "objc_library")(**kwargs)

def cc_proto_library(**kwargs):
    getattr(native, "cc_proto_library")(**kwargs)

def cc_toolchain(**kwargs):
    getattr(native, "cc_toolchain")(**kwargs)

def cc_toolchain_suite(**kwargs):
    getattr(native, "cc_toolchain_suite")(**kwargs)
