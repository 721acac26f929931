"""UpdateContributorInsights / DescribeContributorInsights / ListContributorInsights."""
import json

import pytest

from conftest import expect_error, unique_name


@pytest.mark.ddb_only("ddb-server's /metrics and its own DescribeContributorInsights members")
def test_enable_describe_disable(ddb, raw, endpoint, table_factory):
    name = table_factory(range_key=("sk", "N"), GlobalSecondaryIndexes=[{
        "IndexName": "by_v", "KeySchema": [{"AttributeName": "v", "KeyType": "HASH"}],
        "Projection": {"ProjectionType": "ALL"}}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "sk", "AttributeType": "N"},
                              {"AttributeName": "v", "AttributeType": "S"}])
    d = ddb.describe_contributor_insights(TableName=name)
    assert d["ContributorInsightsStatus"] == "DISABLED" and "ContributorInsightsRuleList" not in d
    r = ddb.update_contributor_insights(TableName=name, ContributorInsightsAction="ENABLE")
    assert r["ContributorInsightsStatus"] == "ENABLING" and r["TableName"] == name
    for i in range(5):
        ddb.put_item(TableName=name, Item={"pk": {"S": "hot"}, "sk": {"N": str(i)}, "v": {"S": "x"}})
    ddb.put_item(TableName=name, Item={"pk": {"S": "cold"}, "sk": {"N": "1"}})
    d = ddb.describe_contributor_insights(TableName=name)
    assert d["ContributorInsightsStatus"] == "ENABLED"
    assert len(d["ContributorInsightsRuleList"]) == 4 and "LastUpdateDateTime" in d
    # ddb's own members: the ranking behind the rules.
    body = raw("DescribeContributorInsights", {"TableName": name}).json()
    assert body["DdbMostAccessedKeys"][0]["PartitionKey"] == "hot"
    assert body["ContributorInsightsMode"] == "ACCESSED_AND_THROTTLED_KEYS"
    import urllib.request
    metrics = urllib.request.urlopen(endpoint + "/metrics").read().decode()
    assert 'rule="partition_sort_key_consumed"' in metrics and 'partition_key="hot"' in metrics
    # A GSI, in THROTTLED_KEYS mode (a newer member: sent raw).
    r = raw("UpdateContributorInsights", {"TableName": name, "IndexName": "by_v",
                                          "ContributorInsightsAction": "ENABLE",
                                          "ContributorInsightsMode": "THROTTLED_KEYS"}).json()
    assert r["ContributorInsightsMode"] == "THROTTLED_KEYS"
    d = ddb.describe_contributor_insights(TableName=name, IndexName="by_v")
    assert d["ContributorInsightsStatus"] == "ENABLED" and len(d["ContributorInsightsRuleList"]) == 1
    assert d["ContributorInsightsRuleList"][0].startswith("DynamoDBContributorInsights-PKT-")
    listed = ddb.list_contributor_insights(TableName=name)["ContributorInsightsSummaries"]
    assert [(s.get("IndexName"), s["ContributorInsightsStatus"]) for s in listed] == [
        (None, "ENABLED"), ("by_v", "ENABLED")]
    page = ddb.list_contributor_insights(TableName=name, MaxResults=1)
    assert len(page["ContributorInsightsSummaries"]) == 1 and page["NextToken"]
    rest = ddb.list_contributor_insights(TableName=name, NextToken=page["NextToken"])
    assert rest["ContributorInsightsSummaries"][0]["IndexName"] == "by_v"
    r = ddb.update_contributor_insights(TableName=name, ContributorInsightsAction="DISABLE")
    assert r["ContributorInsightsStatus"] == "DISABLING"
    assert ddb.describe_contributor_insights(TableName=name)["ContributorInsightsStatus"] == "DISABLED"


def test_errors(ddb, table_factory):
    expect_error(lambda: ddb.describe_contributor_insights(TableName=unique_name("none")),
                 "ResourceNotFoundException")
    name = table_factory()
    expect_error(lambda: ddb.update_contributor_insights(
        TableName=name, IndexName="nope", ContributorInsightsAction="ENABLE"),
        "ResourceNotFoundException")
    expect_error(lambda: ddb.update_contributor_insights(
        TableName=name, ContributorInsightsAction="MAYBE"), "ValidationException")
