e = sch.get_loops(sch.get_block("E"))[1]
d = sch.get_loops(sch.get_block("D"))[1]
sch.merge(e, d)
