v = sch.sample_categorical(candidates=[1, 2], probs=[0.5, 0.5], decision=2)
