sch.add_unit_loop("root")
