sch = tvm.tir.Schedule(Module, debug_mask="all")
(i,) = sch.get_loops("B")
sch.annotate(i, "pragma_x", 1)
