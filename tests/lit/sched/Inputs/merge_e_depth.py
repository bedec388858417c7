i = sch.get_loops(sch.get_block("C"))[0]
j = sch.get_loops(sch.get_block("D"))[1]
sch.merge(i, j)
