"""Shared steps for the article tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from supportdesk.domain import articles
from supportdesk.domain.audit import CLI_ACTOR
from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture

ARTICLE_FIELDS = "id title body status createdAt updatedAt publishedAt"
CREATE_ARTICLE = f"""
mutation($input: CreateArticleInput!) {{
  createArticle(input: $input) {{
    article {{ {ARTICLE_FIELDS} }}
    error {{ code message fields {{ field code }} }}
  }}
}}
"""
UPDATE_ARTICLE = f"""
mutation($input: UpdateArticleInput!) {{
  updateArticle(input: $input) {{
    article {{ {ARTICLE_FIELDS} }}
    error {{ code message fields {{ field code }} }}
  }}
}}
"""
PUBLISH_ARTICLE = f"""
mutation($id: ID!) {{
  publishArticle(id: $id) {{ article {{ {ARTICLE_FIELDS} }} error {{ code message }} }}
}}
"""
UNPUBLISH_ARTICLE = f"""
mutation($id: ID!) {{
  unpublishArticle(id: $id) {{ article {{ {ARTICLE_FIELDS} }} error {{ code message }} }}
}}
"""
ARTICLES = """
query($first: Int, $after: String, $filter: ArticleFilter) {
  articles(first: $first, after: $after, filter: $filter) {
    totalCount
    edges { cursor node { id title status } }
    pageInfo { hasNextPage endCursor }
  }
}
"""


def create_article_payload(api: GraphQLClient, **values: Any) -> dict[str, Any]:
    payload: dict[str, Any] = api.ok(CREATE_ARTICLE, {"input": values})["createArticle"]
    return payload


def new_article(
    api: GraphQLClient, title: str = "Getting started", **values: Any
) -> dict[str, Any]:
    payload = create_article_payload(api, title=title, **values)
    assert payload["error"] is None, payload
    article: dict[str, Any] = payload["article"]
    return article


def insert_articles(
    workspace: WorkspaceFixture, new_articles: Sequence[articles.NewArticle]
) -> list[str]:
    """Many articles at once, through the domain's bulk writer (one transaction)."""
    made = workspace.server.call(
        articles.create_articles(workspace.server.db, CLI_ACTOR, workspace.id, new_articles)
    )
    return [article.id for article in made]


def list_articles(api: GraphQLClient, **variables: Any) -> dict[str, Any]:
    connection: dict[str, Any] = api.ok(ARTICLES, variables)["articles"]
    return connection


def all_pages(api: GraphQLClient, first: int, **variables: Any) -> list[dict[str, Any]]:
    """Every node of the list, walking the cursors `first` at a time."""
    nodes: list[dict[str, Any]] = []
    after = None
    while True:
        page = list_articles(api, first=first, after=after, **variables)
        nodes.extend(edge["node"] for edge in page["edges"])
        if not page["pageInfo"]["hasNextPage"]:
            return nodes
        after = page["pageInfo"]["endCursor"]
