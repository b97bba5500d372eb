from nekoni_edge.cli import cli_entry_point

cli_entry_point()
