i, j, k = sch.get_loops("C")
sch.vectorize(k)
