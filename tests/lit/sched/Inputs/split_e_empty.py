i, j = sch.get_loops("B")
sch.split(i, factors=[])
