sch = tvm.tir.Schedule(MyModule["mm_relu"], debug_mask="all")
sch.cache_write("Y", 0, "local")
print(sch.trace)
