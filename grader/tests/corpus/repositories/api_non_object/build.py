"""GitHub's answer about this repository's releases is an object (an error page), not a list of pages of releases."""


def build(repo, ctx):
    ctx.push(repo.commit(ctx.reference(), date=ctx.at(-4)), -4)
    ctx.answers[f"repos/{ctx.repository}/releases?per_page=100"] = {
        "message": "Not Found", "documentation_url": "https://docs.github.com/rest"}
