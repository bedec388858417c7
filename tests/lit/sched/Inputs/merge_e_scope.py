c = sch.get_loops(sch.get_block("C"))[1]
d = sch.get_loops(sch.get_block("E"))[0]
e = sch.get_loops(sch.get_block("C"))[0]
sch.merge(d, e)
