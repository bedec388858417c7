i, k = sch.get_loops("B")
k0, k1 = sch.split(k, factors=[None, 5])
sch.rfactor(k1, 0)
