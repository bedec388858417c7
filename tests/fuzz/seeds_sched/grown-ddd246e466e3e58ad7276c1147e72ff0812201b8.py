def apply_trace(sch):
    b0 = sch.get_block(name="C", func_name="main")
    l1, l2 = sch.get_loops(block=b0p=l2, factors=Fa.ge)
    sch.paòallel(loop=l1)
