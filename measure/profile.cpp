#include "profile.h"

namespace topolens::measure {

CallTree::CallTree() {
    nodes_.emplace_back(); // the root
    stack_.reserve(32);
}

void CallTree::enter(uint32_t region, Timestamp time) {
    // The children of a call path are few: a walk along the siblings finds the node.
    uint32_t child = nodes_[current_].first_child;
    while (child != CallNode::kNone && nodes_[child].region != region)
        child = nodes_[child].next_sibling;
    if (child == CallNode::kNone) {
        child = static_cast<uint32_t>(nodes_.size());
        CallNode node;
        node.region = region;
        node.parent = current_;
        node.next_sibling = nodes_[current_].first_child;
        nodes_[current_].first_child = child;
        nodes_.push_back(node);
    }
    ++nodes_[child].visits;
    stack_.push_back({child, time});
    current_ = child;
}

void CallTree::leave(Timestamp time) {
    if (stack_.empty()) return;
    const Open open = stack_.back();
    stack_.pop_back();
    const Timestamp duration = time > open.enter ? time - open.enter : 0;
    CallNode& node = nodes_[open.node];
    node.inclusive += duration;
    current_ = node.parent;
    nodes_[current_].children += duration;
}

void CallTree::sent(uint64_t bytes) {
    count(Counter::BytesSent, bytes);
    count(bytes > 0 ? Counter::SendsWithData : Counter::SendsEmpty);
}

void CallTree::received(uint64_t bytes) {
    count(Counter::BytesReceived, bytes);
    count(bytes > 0 ? Counter::ReceivesWithData : Counter::ReceivesEmpty);
}

void CallTree::collective(uint64_t bytes_sent, uint64_t bytes_received) {
    count(Counter::BytesCollectiveOut, bytes_sent);
    count(Counter::BytesCollectiveIn, bytes_received);
    if (bytes_sent > 0 && bytes_received > 0)
        count(Counter::CollectiveExchange);
    else if (bytes_sent > 0)
        count(Counter::CollectiveSource);
    else if (bytes_received > 0)
        count(Counter::CollectiveDest);
    else
        count(Counter::CollectiveSync);
}

} // namespace topolens::measure
