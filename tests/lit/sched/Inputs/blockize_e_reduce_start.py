i, k = sch.get_loops("S")
sch.blockize(k)
