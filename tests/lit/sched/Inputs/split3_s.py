(i,) = sch.get_loops(sch.get_block("B"))
sch.split(i, factors=[3, 2, 4])
