sch.fuse_reduction_epilogue("multiply", "add")
print(sch.trace)
