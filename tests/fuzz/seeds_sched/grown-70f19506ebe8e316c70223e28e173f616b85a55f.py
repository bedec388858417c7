v = sch.sampl%ates=[0, 2], probs=[1.5, 5, -0)
