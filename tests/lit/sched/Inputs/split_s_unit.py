i, j, k = sch.get_loops("C")
sch.split(i, factors=[1, 16, 1], preserve_unit_iters=False)
sch.split(j, factors=[2, 1, 8])
print(sch.trace)
