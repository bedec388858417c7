sch.fuse_reduction_epilogue("multiply", "relu")
