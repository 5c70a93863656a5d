"""`gorila report`: run and suite summaries (summary), figures (plots), an episode as a video (video) and the HTML page (page)."""
