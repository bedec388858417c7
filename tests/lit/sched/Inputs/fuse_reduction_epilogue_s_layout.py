sch.transform_layout(sch.get_block("add"), ("read", 0), lambda a0, a1: (a1, a0 // 2, a0 % 2))
sch.fuse_reduction_epilogue(sch.get_block("multiply"), sch.get_block("add"))
