(i,) = sch.get_loops("B")
a, b = sch.split(i, factors=[None, 4])
f = sch.fuse(a, b)
print(sch.trace)
