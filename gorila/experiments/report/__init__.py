"""`gorila report`: run and suite summaries (summary), figures (plots; MinAtar's against the published DQN in minatar_plots), an episode as a video (video) and the HTML page (page)."""
