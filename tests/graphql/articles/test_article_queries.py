"""article, articles (without search), node."""

from __future__ import annotations

from tests.client import GraphQLClient
from tests.graphql.articles.helpers import PUBLISH_ARTICLE, all_pages, list_articles, new_article


def test_an_article_by_id_and_by_node(api: GraphQLClient) -> None:
    article = new_article(api, title="Billing FAQ", body="Invoices are monthly.")

    by_id = api.ok(
        "query($id: ID!) { article(id: $id) { id title body status createdAt updatedAt publishedAt } }",
        {"id": article["id"]},
    )["article"]
    by_node = api.ok(
        "query($id: ID!) { node(id: $id) { id ... on Article { title status } } }",
        {"id": article["id"]},
    )["node"]

    assert by_id == article
    assert by_node == {"id": article["id"], "title": "Billing FAQ", "status": "draft"}


def test_an_unknown_id_answers_null_with_not_found(api: GraphQLClient) -> None:
    for article_id in (
        "art_01JD0000000000000000000000",
        "acc_01JD0000000000000000000000",
        "nope",
        "",
    ):
        answer = api("query($id: ID!) { article(id: $id) { id } apiInfo }", {"id": article_id})

        assert answer.data["article"] is None, article_id
        assert answer.data["apiInfo"] is not None
        assert answer.error_at("article")["extensions"]["code"] == "NOT_FOUND"


def test_articles_page_in_creation_order_and_filter_by_status(api: GraphQLClient) -> None:
    ids = [new_article(api, title=f"Article {index}")["id"] for index in range(5)]
    for article_id in ids[1::2]:
        api.ok(PUBLISH_ARTICLE, {"id": article_id})

    every = all_pages(api, 2)
    published = list_articles(api, filter={"status": "PUBLISHED"})
    drafts = list_articles(api, filter={"status": "draft"})

    assert [node["id"] for node in every] == ids
    assert [edge["node"]["id"] for edge in published["edges"]] == [ids[1], ids[3]]
    assert published["totalCount"] == 2
    assert [edge["node"]["id"] for edge in drafts["edges"]] == [ids[0], ids[2], ids[4]]
    assert {edge["node"]["status"] for edge in drafts["edges"]} == {"draft"}


def test_an_unknown_status_or_a_bad_cursor_is_bad_input(api: GraphQLClient) -> None:
    new_article(api)
    search_cursor = list_articles(api, first=1, filter={"query": "getting"})["pageInfo"][
        "endCursor"
    ]

    for variables in (
        {"filter": {"status": "archived"}},
        {"after": "not-a-cursor"},
        {"after": search_cursor},  # a search cursor does not fit the plain list
        {"first": 101},
        {"filter": {"query": " ".join(f"word{index}" for index in range(33))}},
        {"filter": {"query": "x" * 501}},
    ):
        answer = api(
            "query($first: Int, $after: String, $filter: ArticleFilter) {"
            " articles(first: $first, after: $after, filter: $filter) { totalCount } }",
            variables,
        )

        assert answer.status == 200, variables
        assert answer.data["articles"] is None, variables
        assert answer.error_at("articles")["extensions"]["code"] == "BAD_USER_INPUT", variables
