"""createArticle, updateArticle, publishArticle, unpublishArticle."""

from __future__ import annotations

from tests.client import GraphQLClient
from tests.graphql.articles.helpers import (
    PUBLISH_ARTICLE,
    UNPUBLISH_ARTICLE,
    UPDATE_ARTICLE,
    create_article_payload,
    list_articles,
    new_article,
)


def update(api: GraphQLClient, article_id: str, **changes: object) -> dict[str, object]:
    payload: dict[str, object] = api.ok(UPDATE_ARTICLE, {"input": {"id": article_id, **changes}})[
        "updateArticle"
    ]
    return payload


def test_an_article_starts_as_a_draft(api: GraphQLClient) -> None:
    article = new_article(api, title="  Resetting your password ", body="Open Settings.")

    assert article["id"].startswith("art_")
    assert article["title"] == "Resetting your password"
    assert article["body"] == "Open Settings."
    assert article["status"] == "draft"
    assert article["publishedAt"] is None
    assert article["createdAt"] == article["updatedAt"]


def test_an_article_may_be_created_published_and_without_a_body(api: GraphQLClient) -> None:
    article = new_article(api, title="Status page", status="Published")

    assert article["status"] == "published"
    assert article["publishedAt"] == article["createdAt"]
    assert article["body"] == ""


def test_publish_and_unpublish(api: GraphQLClient) -> None:
    article = new_article(api)

    published = api.ok(PUBLISH_ARTICLE, {"id": article["id"]})["publishArticle"]
    again = api.ok(PUBLISH_ARTICLE, {"id": article["id"]})["publishArticle"]
    unpublished = api.ok(UNPUBLISH_ARTICLE, {"id": article["id"]})["unpublishArticle"]
    still_draft = api.ok(UNPUBLISH_ARTICLE, {"id": article["id"]})["unpublishArticle"]

    assert published["error"] is None
    assert published["article"]["status"] == "published"
    assert published["article"]["publishedAt"] is not None
    assert published["article"]["publishedAt"] >= article["createdAt"]
    assert again["article"] == published["article"]  # publishing again changes nothing
    assert unpublished["article"]["status"] == "draft"
    assert unpublished["article"]["publishedAt"] is None
    assert still_draft["article"] == unpublished["article"]


def test_update_changes_what_is_given(api: GraphQLClient) -> None:
    article = new_article(api, title="Old title", body="Old body")

    title_only = update(api, article["id"], title=" New title ")["article"]
    body_only = update(api, article["id"], body="New body")["article"]
    nothing = update(api, article["id"])["article"]

    assert title_only["title"] == "New title"  # type: ignore[index]
    assert title_only["body"] == "Old body"  # type: ignore[index]
    assert body_only["title"] == "New title"  # type: ignore[index]
    assert body_only["body"] == "New body"  # type: ignore[index]
    assert body_only["updatedAt"] >= article["updatedAt"]  # type: ignore[index]
    assert nothing == body_only


def test_an_update_is_searchable_at_once_and_the_old_words_are_gone(api: GraphQLClient) -> None:
    article = new_article(api, title="Configuring the printer", body="Printers need toner.")

    update(api, article["id"], title="Configuring the router", body="Routers need cables.")

    def found(query: str) -> list[str]:
        page = list_articles(api, filter={"query": query})
        return [edge["node"]["id"] for edge in page["edges"]]

    assert found("printer") == []
    assert found("toner") == []
    assert found("router cable") == [article["id"]]


def test_an_unknown_article_is_not_found_by_every_mutation(api: GraphQLClient) -> None:
    for article_id in ("art_01JD0000000000000000000000", "iss_01JD0000000000000000000000", "x"):
        updated = update(api, article_id, title="Nope")
        published = api.ok(PUBLISH_ARTICLE, {"id": article_id})["publishArticle"]
        unpublished = api.ok(UNPUBLISH_ARTICLE, {"id": article_id})["unpublishArticle"]

        for payload in (updated, published, unpublished):
            assert payload["article"] is None, article_id
            assert payload["error"]["code"] == "NOT_FOUND", article_id  # type: ignore[index]


BAD_CREATE = [
    ({}, "title", "REQUIRED"),
    ({"title": "  "}, "title", "REQUIRED"),
    ({"title": "t" * 256}, "title", "TOO_LONG"),
    ({"title": "ok", "body": "b" * 100_001}, "body", "TOO_LONG"),
    ({"title": "ok", "status": "archived"}, "status", "INVALID"),
]


def test_bad_input_is_refused_in_the_payload(api: GraphQLClient) -> None:
    for values, field, code in BAD_CREATE:
        payload = create_article_payload(api, **values)

        assert payload["article"] is None, values
        assert payload["error"]["code"] == "VALIDATION_FAILED", values
        assert payload["error"]["fields"] == [{"field": field, "code": code}], values
    assert list_articles(api)["totalCount"] == 0
    article = new_article(api)
    for changes, field, code in [
        ({"title": ""}, "title", "REQUIRED"),
        ({"title": "t" * 256}, "title", "TOO_LONG"),
        ({"body": "b" * 100_001}, "body", "TOO_LONG"),
    ]:
        payload = update(api, article["id"], **changes)

        assert payload["error"]["code"] == "VALIDATION_FAILED", changes  # type: ignore[index]
        assert payload["error"]["fields"] == [{"field": field, "code": code}], changes  # type: ignore[index]
