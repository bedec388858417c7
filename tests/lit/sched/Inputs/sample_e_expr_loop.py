i, j, k = sch.get_loops("C")
v = sch.sample_categorical([2, 4], [0.5, 0.5], decision=0)
sch.split(v, factors=[None, 2])
