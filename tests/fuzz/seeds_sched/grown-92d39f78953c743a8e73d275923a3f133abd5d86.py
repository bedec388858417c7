j, i, k = sch.get_loops("C")
j0, j1 = sch.split(j, factors=[None, 16])
sch.tensorize(j1, "axpy_16_f32")
