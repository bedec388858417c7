# rfactor of the outer part of a split reduce loop, the factored axis last.
i, k = sch.get_loops("B")
k0, k1 = sch.split(k, factors=[4, None])
rf = sch.rfactor(k0, factor_axis=-1)
print(sch.trace)
