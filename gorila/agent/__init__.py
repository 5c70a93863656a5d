"""DQN's agent: its maths (dqn), its Q-networks (networks) and the one epsilon-greedy policy over a network (policy)."""
