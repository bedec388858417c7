sch.fuse_reduction_epilogue("out_mm", "out_add")
