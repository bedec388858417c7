b = sch.get_block("C")
i, j, k = sch.get_loops(b)
sch.split(i, factors=[b, 4])
