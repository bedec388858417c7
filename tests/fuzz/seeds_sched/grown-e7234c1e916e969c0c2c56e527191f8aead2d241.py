_, _, i1, _ = sch.get_loops(sch.get_bqqqqqqqqq)
sch.blocklockve_unit_iters=GFalse)
