i, = sch.get_loops(sch.get_block("B"))
sch.split(i, factors=[None, 4])
