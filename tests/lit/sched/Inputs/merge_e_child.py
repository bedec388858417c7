b = sch.get_loops(sch.get_block("B"))[1]
e = sch.get_loops(sch.get_block("E"))[1]
sch.merge(b, e)
