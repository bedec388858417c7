p = sch.get_block("P")
sch.decompose_padding(p, sch.get_loops(p)[1])
