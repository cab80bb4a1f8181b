"""Offline stand-in for @rules_java: forwards each rule to its native twin."""

def java_binary(**kwargs):
    getattr(native, "java_binary")(**kwargs)

def java_import(**kwargs):
    getattr(native, "java_import")(**kwargs)

def java_library(**kwargs):
    getattr(native, "java_library")(**kwargs)

def java_test(**kwargs):
    getattr(native, "java_test")(**kwargs)

def java_plugin(**kwargs):
    getattr(native, "java_plugin")(**kwargs)

def java_proto_library(**kwargs):
    getattr(native, "java_proto_library")(**kwargs)

def java_runtime(**kwargs):
    getattr(native, "java_runtime")(**kwargs)

def java_toolchain(**kwargs):
    getattr(native, "java_toolchain")(**kwargs)
