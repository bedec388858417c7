sch = tvm.tir.Schedule(MyModule["mm"])
