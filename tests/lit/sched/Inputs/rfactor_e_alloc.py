i, k = sch.get_loops("sum")
sch.rfactor(k, 0)
