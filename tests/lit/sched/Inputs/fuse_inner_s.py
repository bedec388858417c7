o, r, c = sch.get_loops(sch.get_block("B"))
sch.fuse(r, c)
