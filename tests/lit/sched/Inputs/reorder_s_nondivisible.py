(i,) = sch.get_loops("B")
a, b = sch.split(i, factors=[None, 3])
sch.reorder(b, a)
