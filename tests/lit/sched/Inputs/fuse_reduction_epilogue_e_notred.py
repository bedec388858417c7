sch.fuse_reduction_epilogue("scale", "out_add")
