"""The agents' maths and networks: DQN's maths (dqn), PQN's Q(lambda) targets (q_lambda), C51's
distributional maths (distributional), the Q-networks (networks, with the Impala torso in impala),
Rainbow's distributional head (heads) and noisy layers (noisy), and the one epsilon-greedy policy (policy)."""
