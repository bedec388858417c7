i = sch.get_loops(sch.get_block("C"))[2]
j = sch.get_loops(sch.get_block("D"))[2]
sch.merge(i, j)
