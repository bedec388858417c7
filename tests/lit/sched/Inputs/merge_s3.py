d = sch.get_loops(sch.get_block("D"))[1]
b = sch.get_loops(sch.get_block("B"))[1]
sch.merge(d, b)
