"""tokens.py is a submodule (a gitlink, mode 160000) whose .gitmodules URL is the student's own server."""

from grader.tests.gitrepos import Gitlink


def build(repo, ctx):
    files = ctx.reference()
    files["exercises/tokens.py"] = Gitlink("5" * 40)
    files[".gitmodules"] = (f'[submodule "tokens"]\n\tpath = exercises/tokens.py\n'
                            f"\turl = {ctx.attacker_url}/tokens.git\n").encode()
    ctx.push(repo.commit(files, date=ctx.at(-3)), -3)
