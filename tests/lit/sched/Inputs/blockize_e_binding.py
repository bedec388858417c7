i0, i1 = sch.get_loops("B")
sch.blockize(i1)
