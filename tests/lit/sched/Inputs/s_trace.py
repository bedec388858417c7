def apply_trace(sch):
    b0 = sch.get_block(name="C", func_name="main")
    l1, l2 = sch.get_loops(block=b0)
    l3, l4 = sch.split(loop=l2, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
    sch.parallel(loop=l1)
