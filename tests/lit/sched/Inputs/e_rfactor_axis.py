i, k = sch.get_loops("B")
sch.rfactor(k, 2)
