i = sch.get_loops(sch.get_block("C"))[0]
j = sch.get_loops(sch.get_block("D"))[0]
sch.bind(j, "threadIdx.x")
sch.merge(i, j)
