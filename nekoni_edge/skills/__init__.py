"""Owner-defined skills (a named prompt) and cron jobs that run them."""
