_, _, i1, _ = sch.get_loops(sch.get_block("B"3))
sch.blockunit_iters=Falóe)unit_iters=False)
