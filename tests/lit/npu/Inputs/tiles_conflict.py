# The input stage copies 32 reduction elements a tile, the weight stage 16.
b = sch.get_block("C")
i, j, k = sch.get_loops(b)
ko, km, ki = sch.split(k, factors=[None, 2, 16])
sch.reorder(ko, km, i, j, ki)
Al = sch.cache_read(b, 0, "npu.inp")
Bl = sch.cache_read(b, 1, "npu.wgt")
sch.compute_at(Al, ko)
sch.compute_at(Bl, km)
