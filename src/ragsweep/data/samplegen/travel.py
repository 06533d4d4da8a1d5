"""The single-trip and annual travel insurance wording, versions 2024 and 2025."""

from __future__ import annotations

from ragsweep.data.samplegen import shared
from ragsweep.data.samplegen.spec import Ask, ClauseDef, Endorsement, PartDef, ProductDef

DEFINITIONS = PartDef(
    "2",
    "Definitions",
    "definitions",
    (
        ClauseDef(
            "def.baggage",
            "Baggage",
            "baggage",
            (
                "Baggage means luggage, clothing, personal effects and valuables taken on, or"
                " bought during, a trip, that belong to you.",
                {
                    "2024": "Baggage does not include money, passports, travel documents, contact"
                    " lenses, dentures or mobility aids, which are dealt with elsewhere in this"
                    " policy.",
                    "2025": "Baggage does not include money (see clause {ref[def.money]}),"
                    " passports, travel documents, contact lenses, dentures, mobility aids or"
                    " sports equipment, which are dealt with elsewhere in this policy.",
                },
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Does <luggage|=baggage> include <the things I buy|stuff I bought> while"
                        " I'm <away|on holiday>?",
                    ),
                    supports=("cov.baggage",),
                    facts=(0,),
                ),
                Ask(
                    "definitions",
                    (
                        "Are my <glasses|contact lenses> <counted as|treated as>"
                        " <luggage|=baggage>?",
                        "do my <contacts|contact lenses|dentures> come under"
                        " <luggage|my bags> if they get lost?",
                    ),
                    supports=("cov.baggage",),
                    facts=(1,),
                ),
                Ask(
                    "definitions",
                    (
                        "<Is my golf bag|Is my diving gear|Are my golf clubs> still <counted"
                        " as|part of> <luggage|=baggage> <after renewal|on this year's policy>?",
                        "is sports <gear|equipment> <still part of|still included in> my"
                        " <baggage|luggage> cover? it was <last year|before I renewed>",
                    ),
                    supports=("cov.baggage",),
                    hinge="wording",
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "def.relative",
            "Close relative",
            "a close relative",
            (
                {
                    "2024": "Close relative means your mother, father, sister, brother, spouse,"
                    " civil partner or partner, son, daughter, grandparent, grandchild,"
                    " parent-in-law, son-in-law, daughter-in-law, step-parent, step-child,"
                    " step-sister, step-brother, foster child or legal guardian.",
                    "2025": "Close relative means your mother, father, sister, brother, spouse,"
                    " civil partner, partner, fiance or fiancee, son, daughter, grandparent,"
                    " grandchild, parent-in-law, brother-in-law, sister-in-law, son-in-law,"
                    " daughter-in-law, step-parent, step-child, step-sister, step-brother,"
                    " foster child or legal guardian.",
                },
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Does <my aunt|my cousin|my uncle> count as a close relative <for"
                        " cancelling|if I need to cancel>?",
                        "Who <counts as|is classed as> <family|a close relative> <for the"
                        " insurance|on the policy>?",
                        "does my <nan|grandad> count as close family if I have to"
                        " <come home|cancel>?",
                    ),
                    supports=("cov.cancellation",),
                ),
                Ask(
                    "definitions",
                    (
                        "My <brother-in-law|sister-in-law> is <seriously ill|in hospital>, are"
                        " they a close relative <now|this year>? I was told last year they"
                        " <weren't|didn't count>",
                        "Does my <fiance|fiancee> count as <close family|a close relative> after"
                        " the <renewal|policy changed>?",
                    ),
                    supports=("cov.cancellation",),
                    hinge="wording",
                ),
            ),
        ),
        ClauseDef(
            "def.epidemic",
            "Epidemic and pandemic",
            "an epidemic or pandemic",
            (
                "Epidemic means a contagious disease recognised or referred to as an epidemic by"
                " the World Health Organization or an official government authority in your home"
                " area or your trip destination.",
                "Pandemic means an epidemic that is recognised or referred to as a pandemic by the"
                " World Health Organization.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Who decides <if|whether> something is a <pandemic|=pandemic> for my"
                        " travel cover?",
                    ),
                    supports=("exc.pandemic",),
                    facts=(1,),
                ),
            ),
        ),
        shared.DEF_EXCESS,
        ClauseDef(
            "def.hazardous",
            "Hazardous activities",
            "hazardous activities",
            (
                "Hazardous activities means any sport or leisure activity that involves an"
                " increased risk of injury, such as mountaineering, parachuting, bungee jumping,"
                " motor sports and scuba diving below the depth in clause {ref[exc.hazardous]}.",
                "A list of activities that are covered without extra premium is available on our"
                " website.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "What do you <class|count> as a <dangerous|risky|=hazardous> activity?",
                        "Is <bungee jumping|paragliding> a hazardous <activity|sport> on the"
                        " policy?",
                    ),
                    supports=("exc.hazardous",),
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "def.home_area",
            "Home area",
            "your home area",
            (
                "Home area means the United Kingdom, the Channel Islands and the Isle of Man.",
                "Trips within the home area are covered only if you have booked at least"
                " {v[home_nights]} of accommodation away from your home.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Am I covered on a <weekend in Cornwall|UK holiday|staycation>?",
                        "does the <policy|travel insurance> work for a <trip to|few days in> the"
                        " Lake District or is it <abroad only|just for abroad>?",
                    ),
                ),
                Ask(
                    "definitions",
                    (
                        "Do I still need {other[home_nights]} <booked|in a hotel> for a UK trip"
                        " to <count|be covered>?",
                        "Did the <rule|minimum stay> for <UK trips|holidays in the UK>"
                        " change? I thought it was {other[home_nights]} <away|booked>",
                    ),
                    hinge="home_nights",
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "def.medical_condition",
            "Pre-existing medical condition",
            "a pre-existing medical condition",
            (
                "Pre-existing medical condition means any illness or injury for which you have"
                " received advice, treatment or medication, or been referred for tests, in the"
                " {v[medical_lookback]} before you bought this policy or booked a trip, whichever"
                " is later.",
                "It also includes any heart, circulatory, lung or cancer condition you have ever"
                " had.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "What counts as a <pre-existing|existing> <condition|medical condition>?",
                        "<I had|I was treated for> <asthma|high blood pressure> three years ago,"
                        " is that <pre-existing|still an existing condition>?",
                    ),
                    supports=("exc.medical", "cond.health"),
                ),
                Ask(
                    "definitions",
                    (
                        "how far back do you <look|go> <at my health|for medical stuff> when I"
                        " <declare|buy the cover>?",
                    ),
                    supports=("exc.medical", "cond.health"),
                    facts=(0,),
                ),
                Ask(
                    "definitions",
                    (
                        "Is it still {other[medical_lookback]} <you look back|of medical history"
                        " you ask about> for <existing conditions|pre-existing conditions>?",
                        "Did the look back <period|time> for <health conditions|medical"
                        " conditions> change <at renewal|this year>? I thought it was"
                        " {other[medical_lookback]}",
                    ),
                    supports=("exc.medical",),
                    hinge="medical_lookback",
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "def.money",
            "Money",
            "money",
            (
                "Money means cash, travellers' cheques and prepaid currency cards held for social"
                " and domestic purposes.",
                {
                    "2024": "It does not include digital currency, bank cards or credit cards.",
                    "2025": "It does not include digital currency, bank cards, credit cards or"
                    " money held in a mobile payment app or digital wallet.",
                },
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Is a <prepaid travel card|currency card> <counted as|treated as>"
                        " <cash|=money>?",
                    ),
                    supports=("lim.money", "cov.money"),
                    facts=(0,),
                ),
                Ask(
                    "definitions",
                    (
                        "<my|our> <Revolut|travel money> card <got nicked|was stolen>, does that"
                        " count as <cash|money> for the claim?",
                    ),
                    supports=("lim.money", "cov.money"),
                ),
            ),
        ),
        shared.DEF_PERIOD,
        ClauseDef(
            "def.public_transport",
            "Public transport",
            "public transport",
            (
                {
                    "2024": "Public transport means a scheduled aircraft, train, coach, bus or"
                    " ferry that you had booked to travel on, but not a taxi or a car you had"
                    " hired.",
                    "2025": "Public transport means a scheduled aircraft, train, coach, bus or"
                    " ferry that you had booked to travel on, or a taxi or airport transfer"
                    " booked at least 24 hours in advance, but not a car you had hired.",
                },
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Does a <taxi|minicab> <count as|class as> <public transport|=public"
                        " transport> if it doesn't turn up?",
                        "<my|the> <airport transfer|pre-booked cab> never came and we missed the"
                        " flight, is that <public transport|covered as public transport>?",
                    ),
                    supports=("cov.missed_departure",),
                ),
                Ask(
                    "definitions",
                    (
                        "Are taxis <public transport|counted as public transport> <now|on the new"
                        " policy>? <Last year|Before> they <weren't|didn't count>",
                        "Did the <public transport|=public transport> <meaning|definition>"
                        " change to <include|cover> <taxis|pre-booked transfers>?",
                    ),
                    supports=("cov.missed_departure",),
                    hinge="wording",
                ),
            ),
        ),
        ClauseDef(
            "def.companion",
            "Travelling companion",
            "a travelling companion",
            (
                "Travelling companion means a person who has booked to travel with you on the"
                " same trip, whether or not they are insured with us.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "My <friend|mate> who was <coming with me|travelling with me> is"
                        " <ill|in hospital>, do they count as a travelling companion?",
                    ),
                    supports=("cov.cancellation",),
                ),
            ),
        ),
        ClauseDef(
            "def.trip",
            "Trip",
            "a trip",
            (
                "Trip means a journey that starts and ends in your home area, as defined in clause"
                " {ref[def.home_area]}, during the period of insurance, lasting no more than"
                " {v[trip_days]}.",
                "A trip starts when you leave home and ends when you return home, or to a"
                " hospital or nursing home in your home area, whichever is earlier.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "How long can <one trip|a single holiday> be on <an annual|my yearly>"
                        " policy?",
                        "<can i|am i ok to> go <travelling|backpacking> for <five|six> weeks on"
                        " <the annual one|an annual policy>?",
                    ),
                    facts=(0,),
                ),
                Ask(
                    "definitions",
                    (
                        "When does <a trip|my trip> <start and end|begin and finish> for the"
                        " insurance?",
                    ),
                    facts=(1,),
                ),
                Ask(
                    "definitions",
                    (
                        "Did the <max|maximum> trip length change? I thought it was"
                        " {other[trip_days]}",
                        "Is <one trip|a single trip> still limited to {other[trip_days]} <on my"
                        " annual cover|after renewing>?",
                    ),
                    hinge="trip_days",
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "def.unattended",
            "Unattended",
            "unattended",
            (
                "Unattended means left where you cannot see it and are not in a position to"
                " prevent it from being taken or damaged.",
                {
                    "2024": "Property left with a person you do not know, or in a vehicle, is"
                    " treated as unattended.",
                    "2025": "Property left with a person you do not know is treated as"
                    " unattended, and so is property left in a vehicle unless it was locked in"
                    " the boot, out of sight, between 8am and 8pm.",
                },
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Does my bag <left on my sun lounger|on a beach towel> count as <left"
                        " alone|=unattended>?",
                    ),
                    supports=("exc.unattended",),
                    facts=(0,),
                ),
                Ask(
                    "definitions",
                    (
                        "I asked a <stranger|random guy> to <watch|mind> my bag <for five"
                        " minutes|while I swam>, is that <left alone|=unattended>?",
                    ),
                    supports=("exc.unattended",),
                    facts=(1,),
                ),
                Ask(
                    "definitions",
                    (
                        "Is stuff locked in the <car boot|boot of the hire car> <during the"
                        " day|in daytime> still <counted as|classed as> <left alone|=unattended>?",
                        "Did the rule on <leaving things|bags left> in a <car|hire car>"
                        " change <this year|at renewal>?",
                    ),
                    supports=("exc.unattended",),
                    hinge="wording",
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "def.valuables",
            "Valuables",
            "valuables",
            (
                {
                    "2024": "Valuables means jewellery, watches, cameras, binoculars, telescopes,"
                    " electronic games, smartwatches, tablets, laptops and mobile phones, and"
                    " their accessories.",
                    "2025": "Valuables means jewellery, watches, cameras, drones, binoculars,"
                    " telescopes, electronic games, e-readers, headphones, smartwatches, tablets,"
                    " laptops and mobile phones, and their accessories.",
                },
                "The valuables limit in clause {ref[lim.baggage]} applies to all valuables"
                " together.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Is my <phone|tablet> <one of the|counted as> valuables <on my travel"
                        " insurance|for travel>?",
                    ),
                    supports=("lim.baggage",),
                    facts=(0,),
                ),
                Ask(
                    "definitions",
                    (
                        "<Are my AirPods|Are my noise cancelling headphones|Is my Kindle>"
                        " <counted as|classed as> valuables <now|since I renewed>?",
                        "is a <drone|DJI drone> <one of the|in the> valuables <this year|on the"
                        " new wording>?",
                    ),
                    supports=("lim.baggage",),
                    hinge="wording",
                    facts=(0,),
                ),
            ),
        ),
    ),
)

COVER = PartDef(
    "3",
    "What is covered",
    "cover",
    (
        ClauseDef(
            "cov.cancellation",
            "Cancellation",
            "cancellation",
            (
                "We will pay for travel and accommodation costs that you have paid, or are"
                " contracted to pay, and cannot recover, if you have to cancel your trip because"
                " you, a travelling companion (clause {ref[def.companion]}), a close relative"
                " (clause {ref[def.relative]}) or the person you were going to stay with dies, is"
                " injured or falls ill.",
                "We will also pay if you are called for jury service, your home is seriously"
                " damaged, or you are made redundant, as long as you did not know about it when"
                " you booked.",
                "The limit is in clause {ref[lim.cancellation]} and the exclusions in section 5"
                " apply, in particular clause {ref[exc.medical]}.",
                "You must tell your travel provider as soon as you know you cannot travel, as"
                " set out in clause {ref[clm.cancellation]}.",
            ),
            fill=7,
            lay="the cancellation cover",
            asks=(
                Ask(
                    "exclusions",
                    (
                        "<I've been made redundant|I lost my job>, can I cancel <the holiday|our"
                        " trip> and claim?",
                        "<Jury service|I got called for jury duty> clashes with my holiday, <am I"
                        " covered|can I claim> if I cancel?",
                    ),
                    supports=("lim.cancellation", "exc.medical"),
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "cov.curtailment",
            "Cutting your trip short",
            "cutting your trip short",
            (
                "We will pay for unused travel and accommodation costs, and reasonable extra"
                " travel costs, if you have to cut your trip short and return home for one of the"
                " reasons in clause {ref[cov.cancellation]}.",
                "We will pay for unused days calculated from the day you return home.",
                "The limit in clause {ref[lim.cancellation]} covers cancellation and cutting short"
                " together.",
            ),
            fill=6,
            lay="the cutting short section",
            asks=(
                Ask(
                    "limits",
                    (
                        "Do you pay back the <nights|days> we <lose|don't use> if we have to <fly"
                        " home early|come back early>?",
                        "If I <cut the holiday short|come home a week early>, do I get the"
                        " <unused hotel nights|rest of the holiday> back?",
                    ),
                    supports=("lim.cancellation", "exc.medical"),
                    facts=(0, 1),
                ),
            ),
        ),
        ClauseDef(
            "cov.medical",
            "Emergency medical expenses",
            "emergency medical treatment",
            (
                "We will pay for emergency medical, surgical and hospital treatment and ambulance"
                " costs outside your home area if you are taken ill or injured during a trip.",
                "We will also pay for emergency dental treatment to relieve sudden pain, and for"
                " bringing you home if our medical officer agrees it is necessary.",
                "You must contact our emergency assistance service before you are admitted to"
                " hospital; see clause {ref[clm.medical]}.",
                "The limits are in clause {ref[lim.medical]}, and clause {ref[exc.medical]} applies"
                " to any condition you had before you travelled.",
            ),
            fill=7,
            lay="the medical expenses section",
        ),
        ClauseDef(
            "cov.hospital",
            "Hospital benefit",
            "hospital benefit",
            (
                "We will pay a benefit of {v[hospital_day]} for each complete 24 hours you spend as"
                " an in-patient in a hospital outside your home area, up to {v[hospital_max]}, as a"
                " result of illness or injury covered by clause {ref[cov.medical]}.",
                "This benefit is to help with costs such as phone calls and taxi fares for your"
                " visitors.",
            ),
            fill=5,
        ),
        ClauseDef(
            "cov.baggage",
            "Baggage",
            "your baggage",
            (
                "We will pay for baggage that is lost, stolen or damaged during a trip.",
                "We will pay the value of the item at the time of loss, after a deduction for wear"
                " and tear, or the cost of repair if that is less.",
                "The single item and valuables limits in clause {ref[lim.baggage]} apply.",
                "Valuables and money carried in checked-in luggage are not covered; see clause"
                " {ref[exc.unattended]}.",
            ),
            fill=7,
            lay="the baggage section",
        ),
        ClauseDef(
            "cov.delayed_baggage",
            "Delayed baggage",
            "delayed baggage",
            (
                "If your baggage is delayed on the outward journey for more than 12 hours, we"
                " will pay up to {v[delayed_baggage]} for essential replacement items you have to"
                " buy.",
                "You must keep receipts and get written confirmation of the delay from the"
                " airline or carrier, as set out in clause {ref[clm.baggage]}.",
                "Any amount we pay will be deducted from a later claim under clause"
                " {ref[cov.baggage]} if the baggage is permanently lost.",
            ),
            fill=6,
            lay="the delayed baggage cover",
        ),
        ClauseDef(
            "cov.money",
            "Personal money",
            "personal money",
            (
                "We will pay for personal money, as defined in clause {ref[def.money]}, that is"
                " lost or stolen during a trip, provided it was carried on your person or kept in"
                " a locked safe.",
                "You must report the loss to the police within 24 hours and get a written report.",
                "The cash limits are in clause {ref[lim.money]}.",
            ),
            fill=6,
        ),
        ClauseDef(
            "cov.passport",
            "Passport and travel documents",
            "your passport",
            (
                "We will pay the cost of an emergency travel document or replacement passport,"
                " and your reasonable extra travel and accommodation costs to obtain it, if your"
                " passport is lost or stolen abroad.",
                "You must report the loss to the police and to the nearest British embassy or"
                " consulate, and the limit in clause {ref[lim.passport]} applies.",
            ),
            fill=6,
            lay="the passport cover",
        ),
        ClauseDef(
            "cov.delay",
            "Travel delay and abandonment",
            "travel delay",
            (
                "If your outward or return departure on public transport is delayed for more than"
                " 12 hours because of strike, industrial action, bad weather or mechanical"
                " breakdown, we will pay a benefit for each full 12 hours of delay.",
                "If your outward departure is delayed for more than 24 hours, you may instead"
                " abandon the trip and claim under clause {ref[cov.cancellation]}.",
                "We will not pay for a delay caused by a strike that had been announced when you"
                " booked; see clause {ref[exc.strike]}.",
            ),
            fill=6,
            lay="the delay section",
            asks=(
                Ask(
                    "limits",
                    (
                        "How <many hours|long> does <my flight|the plane> have to be <delayed|late>"
                        " before I can claim?",
                    ),
                    supports=("lim.delay", "exc.strike", "clm.delay"),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "<Our flight out|The outbound flight> is <over a day late|delayed more than"
                        " 24 hours>, can we <just not go|give up on the holiday> and claim?",
                    ),
                    supports=("exc.strike", "clm.delay"),
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "cov.missed_departure",
            "Missed departure",
            "missed departure",
            (
                "We will pay reasonable extra travel and accommodation costs to reach your"
                " destination if you miss your booked departure because public transport fails"
                " or the car you are travelling in breaks down or is involved in an accident.",
                "You must have allowed enough time to reach the departure point.",
                "Public transport has the meaning in clause {ref[def.public_transport]}.",
            ),
            fill=6,
            lay="the missed departure section",
        ),
        ClauseDef(
            "cov.liability",
            "Personal liability",
            "personal liability",
            (
                "We will pay amounts you become legally liable to pay for accidental injury to"
                " another person or accidental damage to their property during a trip.",
                "We will not pay for liability arising from the use of motor vehicles, boats,"
                " aircraft or firearms, or from your work.",
                "The limit and the excess are in clause {ref[lim.liability]}.",
            ),
            fill=6,
        ),
        ClauseDef(
            "cov.winter_sports",
            "Winter sports",
            "winter sports",
            (
                "Where endorsement END-TR-05 is shown in your schedule, the cover in this"
                " section extends to skiing, snowboarding and other winter sports on piste, and"
                " off piste with a qualified guide.",
                "We will also pay for the hire of replacement ski equipment if yours is lost,"
                " stolen or damaged, and a benefit if all lifts are closed by lack of snow.",
                "The limits are in clause {ref[lim.winter_sports]}; skiing off piste without a"
                " guide is a hazardous activity under clause {ref[exc.hazardous]}.",
            ),
            fill=6,
            lay="the winter sports extension",
        ),
        ClauseDef(
            "cov.legal",
            "Legal expenses abroad",
            "legal expenses",
            (
                "We will pay legal costs to pursue a claim for compensation against someone who"
                " causes your death, injury or illness during a trip.",
                "We will only pay if we believe there is a reasonable chance of success.",
            ),
            fill=5,
            versions=("2024",),  # withdrawn in 2025; its number 3.13 is not reused
        ),
        ClauseDef(
            "cov.kennel",
            "Kennel and cattery fees",
            "kennel and cattery fees",
            (
                "If your return home is delayed beyond your booked return date because of a delay"
                " covered by clause {ref[cov.delay]} or because you are in hospital under clause"
                " {ref[cov.medical]}, we will pay the extra kennel, cattery or pet-sitting fees"
                " you have to pay, up to £300 for each trip.",
                "You must send us the invoice from the kennel, cattery or pet sitter showing the"
                " extra days.",
            ),
            fill=5,
            versions=("2025",),
            lay="the kennel fees cover",
            gloss="extra kennel or cattery fees if you get home late",
            asks=(
                Ask(
                    "limits",
                    (
                        "Our flight home got <cancelled|delayed two days>, will you pay the extra"
                        " <kennel|cattery> <fees|bill> for <the dog|our cat>?",
                        "Is there <anything|any cover> for <pet sitting|the dog sitter> if we're"
                        " <stuck abroad|late back>? <I think it's new|Heard it was added this"
                        " year>",
                    ),
                    supports=("cov.delay", "exc.strike"),
                    hinge="wording",
                    facts=(0,),
                ),
            ),
        ),
    ),
)

LIMITS = PartDef(
    "4",
    "Limits and excesses",
    "limits",
    (
        ClauseDef(
            "lim.general",
            "How limits and excesses apply",
            "the limits and excesses",
            (
                "The limits in this section apply to each insured person for each trip.",
                "The excess, as defined in clause {ref[def.excess]}, applies to each insured"
                " person, for each section of cover under which they claim, for each incident, so"
                " excesses under different sections are added together.",
                "No excess applies to claims for travel delay, delayed baggage or hospital"
                " benefit.",
            ),
            fill=5,
        ),
        ClauseDef(
            "lim.cancellation",
            "Cancellation and cutting short",
            "cancellation",
            (
                "The most we will pay for cancellation, or for cutting your trip short, is"
                " {v[cancellation_limit]} for each insured person.",
                "If you have a single trip policy, the limit is the lower of this amount and the"
                " cost of the trip.",
            ),
            fill=5,
            asks=(
                Ask(
                    "limits",
                    (
                        "How much can I get back if I have to <cancel my holiday|cancel the trip>?",
                        "What's the <maximum|most> <per person|for each of us> if we <can't"
                        " go|cancel>?",
                        "we <cant|can't> go anymore, <whats|what's> the most <we get|you pay>"
                        " back <each|per head>?",
                    ),
                    supports=("cov.cancellation", "exc.medical", "clm.cancellation"),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "If I have to <fly home early|come home early> because my <dad|mum> is ill,"
                        " <how much|what> do you pay?",
                    ),
                    supports=("cov.curtailment", "def.relative", "exc.medical"),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "Has the cancellation <limit|cover> gone up? <I thought|Last year> it was"
                        " {other[cancellation_limit]}",
                        "Is it still {other[cancellation_limit]} <each|a person> if we <cancel|have"
                        " to cancel> <after the renewal|this year>?",
                    ),
                    supports=("cov.cancellation", "exc.medical"),
                    versions=("2025",),
                    hinge="cancellation_limit",
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "<Someone said|I read> cancellation cover is {other[cancellation_limit]} a"
                        " person now, <is that|does that go for> my policy?",
                    ),
                    supports=("cov.cancellation", "exc.medical", "abt.documents"),
                    versions=("2024",),
                    hinge="cancellation_limit",
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "lim.medical",
            "Emergency medical expenses",
            "medical expenses",
            (
                "The most we will pay for emergency medical expenses is £10,000,000 for each"
                " insured person.",
                "Within this, the most we will pay for emergency dental treatment is"
                " {v[dental_limit]}.",
                "An excess of {v[standard_excess]} applies, unless the cost has been reduced by"
                " using a Global Health Insurance Card as clause {ref[clm.recovery]} requires.",
            ),
            fill=5,
            asks=(
                Ask(
                    "limits",
                    (
                        "How much <dental|dentist> treatment is covered <abroad|on holiday>?",
                        "<cracked|broke> a tooth <in Crete|on holiday>, how much will you"
                        " <pay|cover> for the dentist?",
                    ),
                    supports=("cov.medical", "exc.medical", "clm.medical"),
                    facts=(1,),
                ),
                Ask(
                    "limits",
                    ("Is there a limit on <hospital bills|medical costs> <abroad|overseas>?",),
                    supports=("cov.medical", "exc.medical", "clm.medical"),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "Do I pay an excess if I use my <GHIC|EHIC card> in a hospital abroad?",
                        "<if i|If I> show my <GHIC|health card> at the hospital do I <still"
                        " pay|have to pay> the excess?",
                    ),
                    supports=("cov.medical", "clm.recovery", "lim.excess"),
                    facts=(2,),
                ),
                Ask(
                    "limits",
                    (
                        "Is the dentist <limit|cover> still {other[dental_limit]} <abroad|on"
                        " holiday>?",
                        "Did the emergency dental <limit|amount> change? I <thought|had in my"
                        " head> it was {other[dental_limit]}",
                    ),
                    supports=("cov.medical",),
                    hinge="dental_limit",
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "lim.hospital",
            "Hospital benefit",
            "hospital benefit",
            (
                "The hospital benefit is {v[hospital_day]} for each complete 24 hours, up to"
                " {v[hospital_max]} for each insured person.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "Do you pay <anything|money> <per day|for each day> if I'm <in|stuck in>"
                        " hospital abroad?",
                        "<how much|what> do I get <a day|daily> for being <kept in|admitted to>"
                        " hospital <overseas|in Spain>?",
                    ),
                    also=("cov.hospital",),
                    supports=("exc.medical", "lim.general"),
                ),
                Ask(
                    "limits",
                    (
                        "Is the hospital <benefit|money> still {other[hospital_day]} a day <after"
                        " renewal|this year>?",
                        "<I thought|My mate said> the daily hospital <payment|benefit> was"
                        " {other[hospital_day]}, is that <right|what I get>?",
                    ),
                    also=("cov.hospital",),
                    supports=("exc.medical",),
                    hinge="hospital_day",
                ),
            ),
        ),
        ClauseDef(
            "lim.baggage",
            "Baggage",
            "baggage",
            (
                "The most we will pay for baggage is {v[baggage_total]} for each insured person.",
                "Within this, the most we will pay for any one item, pair or set is"
                " {v[baggage_single]}, and for all valuables (clause {ref[def.valuables]}) together"
                " {v[baggage_valuables]}.",
                "The exclusion in clause {ref[exc.unattended]} applies to baggage claims.",
            ),
            fill=5,
            asks=(
                Ask(
                    "limits",
                    (
                        "The airline lost my <suitcase|luggage>, how much can I claim <in total|all"
                        " together>?",
                    ),
                    supports=("cov.baggage", "def.valuables", "exc.unattended", "clm.baggage"),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "What's the <most|max> you'll pay for <my phone|my camera> if it's <stolen"
                        " abroad|taken on holiday>?",
                        "Is there a single item limit on <luggage|=baggage>?",
                        "my <iphone|phone> got <nicked|pinched> <in Barcelona|on the beach>, whats"
                        " the most i can <get|claim>?",
                    ),
                    supports=("cov.baggage", "def.valuables", "exc.unattended", "clm.baggage"),
                    facts=(1,),
                ),
                Ask(
                    "limits",
                    (
                        "Has the <baggage|luggage> limit gone up this year? It <was|used to be>"
                        " {other[baggage_total]}",
                        "<I heard|Someone said> the <luggage|baggage> cover is"
                        " {other[baggage_total]} <now|these days>, is that what I've got?",
                    ),
                    supports=("cov.baggage", "exc.unattended"),
                    hinge="baggage_total",
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "Is the <valuables|gadgets and jewellery> limit still"
                        " {other[baggage_valuables]} <in total|all together>?",
                    ),
                    supports=("def.valuables", "exc.unattended"),
                    versions=("2025",),
                    hinge="baggage_valuables",
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "lim.delayed_baggage",
            "Delayed baggage",
            "delayed baggage",
            (
                "The most we will pay for delayed baggage is {v[delayed_baggage]} for each insured"
                " person.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "My <bag|case> didn't <turn up|arrive> <at the airport|with me>, how much"
                        " can I spend on <clothes|essentials>?",
                        "<suitcase|case> still hasnt <arrived|shown up> after a day, how much can"
                        " I <buy|spend> and claim back?",
                    ),
                    also=("cov.delayed_baggage",),
                    supports=("clm.baggage", "lim.general"),
                ),
                Ask(
                    "limits",
                    (
                        "Did the delayed <bag|luggage> <allowance|limit> change from"
                        " {other[delayed_baggage]}?",
                    ),
                    also=("cov.delayed_baggage",),
                    hinge="delayed_baggage",
                ),
            ),
        ),
        ClauseDef(
            "lim.money",
            "Personal money",
            "personal money",
            (
                "The most we will pay for personal money is {v[money_limit]} for each insured"
                " person, of which no more than {v[cash_limit]} may be cash.",
                "For anyone under 18 years old, the cash limit is £50.",
                "Money left unattended is not covered unless it was in a locked safe; see clause"
                " {ref[exc.unattended]}.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "How much <cash|money> is covered if <my wallet is|I'm>"
                        " <stolen|pickpocketed>"
                        " abroad?",
                    ),
                    supports=("cov.money", "def.money", "exc.unattended"),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    ("<Is there a lower|What's the> <cash|money> limit for <my kids|under 18s>?",),
                    supports=("cov.money", "def.money"),
                    facts=(1,),
                ),
                Ask(
                    "limits",
                    (
                        "Is the cash <limit|cover> still {other[cash_limit]} <after I renewed|this"
                        " year>?",
                        "Did the <cash|money> limit <change|go up>? <I thought|Last year> it"
                        " was {other[cash_limit]}",
                    ),
                    supports=("cov.money", "exc.unattended"),
                    versions=("2025",),
                    hinge="cash_limit",
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "lim.passport",
            "Passport",
            "your passport",
            (
                "The most we will pay for replacing a passport or travel documents is"
                " {v[passport_limit]} for each insured person.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "I lost my passport <in Spain|abroad>, how much will you pay for <an"
                        " emergency one|the replacement>?",
                        "<passport|my passport> <got stolen|was taken> from the hotel, <what|how"
                        " much> do you cover for <a new one|the emergency travel document>?",
                    ),
                    supports=("cov.passport", "clm.baggage", "exc.unattended"),
                ),
            ),
        ),
        ClauseDef(
            "lim.delay",
            "Travel delay",
            "travel delay",
            (
                "The travel delay benefit is {v[delay_benefit]} for each full 12 hours of delay,"
                " up to {v[delay_max]} for each insured person.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "My flight was <delayed|late> by <14 hours|a whole day>, <what do I get|how"
                        " much do you pay>?",
                        "<stuck at|sat in> <Gatwick|the airport> for <13 hours|ages>, is there a"
                        " <payout|payment> for that?",
                    ),
                    supports=("cov.delay", "exc.strike", "clm.delay"),
                ),
                Ask(
                    "limits",
                    (
                        "Is the delay <payment|money> still {other[delay_benefit]} <per 12"
                        " hours|every 12 hours>?",
                        "Did the flight delay <benefit|payout> go up from {other[delay_benefit]}?",
                    ),
                    supports=("cov.delay", "exc.strike"),
                    versions=("2025",),
                    hinge="delay_benefit",
                ),
            ),
        ),
        ClauseDef(
            "lim.missed_departure",
            "Missed departure",
            "missed departure",
            (
                "The most we will pay for missed departure is {v[missed_limit]} for each insured"
                " person.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "<My train was cancelled|The train broke down> and I missed my flight, how"
                        " much will you cover?",
                        "<car broke down|we broke down> on the <M25|motorway> and missed the"
                        " <ferry|flight>, <what|how much> can we claim?",
                    ),
                    supports=("cov.missed_departure", "def.public_transport", "clm.delay"),
                ),
                Ask(
                    "limits",
                    (
                        "Is missed departure still capped at {other[missed_limit]} <on my"
                        " policy|after renewing>?",
                    ),
                    supports=("cov.missed_departure", "def.public_transport"),
                    versions=("2025",),
                    hinge="missed_limit",
                ),
            ),
        ),
        ClauseDef(
            "lim.liability",
            "Personal liability",
            "personal liability",
            (
                "The most we will pay for personal liability is £2,000,000 for any one event,"
                " including legal costs.",
                "An excess of £250 applies to claims for damage to property.",
                "Clause {ref[exc.deliberate]} applies to this section.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "If I <accidentally damage|break something in> the <villa|hotel room>,"
                        " what's the excess?",
                        "<knocked over|smashed> a <glass table|tv> in the <apartment|Airbnb>,"
                        " <what do I pay|is there an excess>?",
                    ),
                    supports=("cov.liability", "exc.deliberate"),
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "lim.winter_sports",
            "Winter sports",
            "winter sports",
            (
                "Where endorsement END-TR-05 applies, the most we will pay for your own ski"
                " equipment is {v[ski_equipment]}, and for hiring replacement equipment £300.",
                "The piste closure benefit is £20 for each full day, up to £200.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "My <skis|snowboard> got stolen <from the rack|outside a bar>, how much"
                        " will you pay?",
                    ),
                    supports=("cov.winter_sports", "exc.unattended", "exc.hazardous"),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "Do I get <money back|anything> if there's no snow and <the slopes|the"
                        " lifts> are closed?",
                    ),
                    supports=("cov.winter_sports",),
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "lim.excess",
            "Standard excess",
            "the standard excess",
            (
                "The standard excess, as defined in clause {ref[def.excess]}, is"
                " {v[standard_excess]} for each insured person, for each section under which they"
                " claim, for each incident.",
                "Where endorsement END-TR-09 is shown in your schedule, no standard excess"
                " applies.",
            ),
            fill=4,
            lay="the excess clause",
            asks=(
                Ask(
                    "limits",
                    (
                        "What's the <excess|deductible> on <my travel insurance|a travel claim>?",
                        "how much is the <excess|deductible> <per person|each> on a holiday claim?",
                    ),
                    supports=("lim.general", "def.excess", "lim.medical", "lim.liability"),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "<Do we each|Does each of us> pay <an excess|the deductible> if <the whole"
                        " family|all of us> claim?",
                        "there's four of us on the booking, do we pay <4 excesses|the excess four"
                        " times>?",
                    ),
                    also=("lim.general",),
                    supports=("def.excess",),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "Is my <excess|deductible> still {other[standard_excess]} <after"
                        " renewal|this year>?",
                        "Did the <excess|deductible> <go up|change>? <It was|I remember>"
                        " {other[standard_excess]} <before|last time>",
                    ),
                    supports=("lim.general", "def.excess", "lim.medical"),
                    versions=("2025",),
                    hinge="standard_excess",
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "I heard the travel excess <went up|is going up> to"
                        " {other[standard_excess]}, does that apply to me <yet|already>?",
                        "<is|Is> my <excess|deductible> {other[standard_excess]} <now|yet> or do I"
                        " <wait|have to wait> till renewal?",
                    ),
                    supports=("lim.general", "def.excess", "lim.medical", "abt.documents"),
                    versions=("2024",),
                    hinge="standard_excess",
                    facts=(0,),
                ),
            ),
        ),
    ),
)

EXCLUSIONS = PartDef(
    "5",
    "What is not covered",
    "exclusions",
    (
        *shared.EXCLUSIONS_FIRST,
        ClauseDef(
            "exc.medical",
            "Pre-existing medical conditions",
            "pre-existing medical conditions",
            (
                "We will not pay any claim caused by or connected with a pre-existing medical"
                " condition of yours, as defined in clause {ref[def.medical_condition]}, unless you"
                " told us about it as condition {ref[cond.health]} requires and we agreed in"
                " writing to cover it.",
                "We will not pay a cancellation or cutting short claim caused by the pre-existing"
                " medical condition of a close relative or travelling companion if you knew, when"
                " you booked, that their condition was serious or getting worse.",
                "We will not pay any claim if you travel against the advice of a doctor, or for"
                " the purpose of getting medical treatment.",
            ),
            fill=4,
            code_no=5,
            lay="the medical conditions exclusion",
            asks=(
                Ask(
                    "exclusions",
                    (
                        "I <didn't mention|forgot to declare> my <diabetes|heart condition>, will"
                        " you still pay if I <get ill|need treatment> abroad?",
                    ),
                    supports=("def.medical_condition", "cond.health"),
                    facts=(0,),
                ),
                Ask(
                    "exclusions",
                    (
                        "my <mum|dad> was <already poorly|in and out of hospital> when we booked"
                        " and now we have to cancel, will you pay?",
                    ),
                    supports=("def.medical_condition", "cov.cancellation"),
                    facts=(1,),
                ),
                Ask(
                    "exclusions",
                    (
                        "Am I covered if <my doctor said not to travel|I travel against my"
                        " doctor's advice>?",
                    ),
                    facts=(2,),
                ),
            ),
        ),
        ClauseDef(
            "exc.alcohol",
            "Alcohol and drugs",
            "alcohol and drugs",
            (
                "We will not pay any claim arising from you drinking so much alcohol that your"
                " judgement is seriously affected, or from your use of drugs not prescribed by a"
                " doctor.",
                "This does not apply to claims where you are the victim of a crime.",
            ),
            fill=4,
            code_no=6,
            asks=(
                Ask(
                    "exclusions",
                    (
                        "If I <fall off a balcony|hurt myself> after <a few drinks|drinking>, am I"
                        " still covered?",
                        "<Will|Do> you pay medical bills if I was drunk?",
                    ),
                    supports=("cov.medical",),
                    facts=(0,),
                ),
                Ask(
                    "exclusions",
                    (
                        "I got <mugged|attacked> after a night out and had been drinking, <can I"
                        " still claim|does the drink thing apply>?",
                    ),
                    supports=("cov.medical",),
                ),
            ),
        ),
        ClauseDef(
            "exc.hazardous",
            "Hazardous activities",
            "hazardous activities",
            (
                "We will not pay any claim arising from you taking part in hazardous activities,"
                " unless they are shown as covered in your schedule.",
                {
                    "2024": "Scuba diving is covered to a depth of {v[dive_depth]}, provided you"
                    " hold a recognised qualification or dive with a qualified instructor.",
                    "2025": "Scuba diving is covered to a depth of {v[dive_depth]}, provided you"
                    " hold a recognised qualification, dive with a qualified instructor and never"
                    " dive alone.",
                },
                "Hazardous activities are defined in clause {ref[def.hazardous]}.",
            ),
            fill=4,
            code_no=7,
            lay="the hazardous activities exclusion",
            asks=(
                Ask(
                    "exclusions",
                    ("How deep can I <scuba dive|dive> and still be covered?",),
                    supports=("def.hazardous",),
                    facts=(1,),
                ),
                Ask(
                    "exclusions",
                    (
                        "<Am I covered|Is it covered> if I <hurt myself|get injured> <bungee"
                        " jumping|paragliding>?",
                    ),
                    supports=("def.hazardous",),
                    facts=(0,),
                ),
                Ask(
                    "exclusions",
                    (
                        "Is diving still only covered to {other[dive_depth]}? <I'm doing my|Just"
                        " got my> advanced <PADI|open water>",
                        "Did the <dive|scuba> depth limit change <this year|since last"
                        " year>? I thought it was {other[dive_depth]}",
                    ),
                    supports=("def.hazardous",),
                    hinge="dive_depth",
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "exc.advice",
            "Travel against government advice",
            "travel against government advice",
            (
                "We will not pay any claim arising from travel to a country or area that the"
                " Foreign, Commonwealth and Development Office advised against travelling to at"
                " the time you travelled.",
                "If the advice changes after you book, you may be able to claim under clause"
                " {ref[cov.cancellation]}.",
            ),
            fill=4,
            code_no=9,
            asks=(
                Ask(
                    "exclusions",
                    ("Am I covered if the <Foreign Office|FCDO> says not to <go|travel> there?",),
                    facts=(0,),
                ),
                Ask(
                    "exclusions",
                    (
                        "The <government|Foreign Office> changed its advice after I booked, can I"
                        " cancel?",
                    ),
                    supports=("cov.cancellation",),
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "exc.unattended",
            "Unattended property",
            "unattended property",
            (
                "We will not pay for loss or theft of baggage, valuables or money left"
                " unattended, as defined in clause {ref[def.unattended]}, unless it was in a locked"
                " room or a locked safe.",
                "We will not pay for valuables (clause {ref[def.valuables]}) or money carried in"
                " checked-in luggage.",
            ),
            fill=4,
            code_no=10,
            lay="the unattended property exclusion",
            asks=(
                Ask(
                    "exclusions",
                    (
                        "My <phone|bag> was <stolen|taken> from the beach while I was swimming,"
                        " can I claim?",
                        "<left|put> my <phone|watch> <in the car|in the hire car> <while we|when"
                        " we went> to the beach and it was <nicked|stolen>, am I covered?",
                    ),
                    supports=("def.unattended", "cov.baggage", "def.valuables", "lim.baggage"),
                    facts=(0,),
                ),
                Ask(
                    "exclusions",
                    (
                        "I put my <laptop|camera> in my <checked bag|hold luggage> and it's gone,"
                        " will you pay?",
                        "<jewellery|my watch> went missing from my <suitcase|case> <after the"
                        " flight|at baggage reclaim>, can I claim?",
                    ),
                    also=("cov.baggage",),
                    supports=("def.valuables", "lim.baggage"),
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "exc.pandemic",
            "Epidemics and pandemics",
            "epidemics and pandemics",
            (
                {
                    "2024": "We will not pay any claim arising from an epidemic or pandemic,"
                    " including cancellation because you, or someone you were travelling with,"
                    " caught an epidemic disease.",
                    "2025": "We will not pay any claim arising from travel restrictions, lockdowns"
                    " or quarantine imposed because of an epidemic or pandemic.",
                },
                {
                    "2025": "We will pay under clauses {ref[cov.cancellation]} and"
                    " {ref[cov.medical]} if you are diagnosed with an epidemic disease before or"
                    " during your trip.",
                },
            ),
            fill=4,
            code_no=11,
            lay="the pandemic exclusion",
            asks=(
                Ask(
                    "exclusions",
                    (
                        "If I <test positive for covid|catch covid> before I go, can I cancel and"
                        " claim?",
                    ),
                    supports=("def.epidemic", "cov.cancellation"),
                ),
                Ask(
                    "exclusions",
                    (
                        "Are you going to pay if there's a <lockdown|quarantine> and I can't"
                        " <travel|go>?",
                    ),
                    supports=("def.epidemic", "cov.cancellation"),
                    facts=(0,),
                ),
                Ask(
                    "exclusions",
                    (
                        "Is covid <still excluded|still not covered> <on the new policy|since I"
                        " renewed>?",
                        "Did the <covid|pandemic> <rule|exclusion> change? <Last year|Before>"
                        " you wouldn't pay if I caught it",
                    ),
                    supports=("def.epidemic", "cov.cancellation", "cov.medical"),
                    hinge="wording",
                ),
            ),
        ),
        ClauseDef(
            "exc.strike",
            "Known strikes and events",
            "strikes known before booking",
            (
                "We will not pay any claim arising from a strike, industrial action or other"
                " event that had been announced or had started before you booked your trip or"
                " bought this policy, whichever was later.",
            ),
            fill=4,
            code_no=12,
            asks=(
                Ask(
                    "exclusions",
                    (
                        "The <air traffic control|airport> strike was <announced|in the news>"
                        " before I booked, am I covered for the delay?",
                    ),
                    also=("cov.delay",),
                ),
            ),
        ),
        ClauseDef(
            "exc.insolvency",
            "Travel provider insolvency",
            "the insolvency of a travel provider",
            (
                "We will not pay any claim arising from the insolvency of an airline, tour"
                " operator, accommodation provider or booking agent.",
                {
                    "2025": "This exclusion does not apply where endorsement END-TR-14 is shown"
                    " in your schedule, in which case we will pay for the unused part of your"
                    " trip up to the limit in clause {ref[lim.cancellation]}.",
                },
            ),
            fill=4,
            code_no=14,
            asks=(
                Ask(
                    "exclusions",
                    (
                        "The airline <went bust|went into administration> before my flight, can I"
                        " claim?",
                        "Am I covered if the <tour operator|travel company> collapses?",
                    ),
                    versions=("2024",),
                ),
                Ask(
                    "exclusions",
                    (
                        "The airline <went bust|went into administration> before my flight, can I"
                        " claim?",
                        "Am I covered if the <tour operator|travel company> collapses?",
                        "<is there|can I get> cover <now|this year> if the <holiday"
                        " company|airline> goes under? <it wasnt|it wasn't> covered before",
                    ),
                    supports=("lim.cancellation", "abt.endorsements"),
                    versions=("2025",),
                    hinge="wording",
                ),
            ),
        ),
        ClauseDef(
            "exc.motorcycles",
            "Motorcycles and mopeds",
            "motorcycles and mopeds",
            (
                {
                    "2024": "We will not pay any claim arising from riding a motorcycle or moped"
                    " with an engine above {v[moped_cc]}, whether as driver or passenger.",
                    "2025": "We will not pay any claim arising from riding a motorcycle or moped"
                    " with an engine above {v[moped_cc]}, or riding any motorcycle or moped without"
                    " a helmet or without a licence valid in the country concerned.",
                },
            ),
            fill=4,
            code_no=15,
            lay="the moped exclusion",
            asks=(
                Ask(
                    "exclusions",
                    (
                        "Am I covered <riding|on> a <moped|scooter> <in Greece|in Thailand>?",
                        "If I <hire|rent> a <125cc|small> scooter <on holiday|abroad>, <will you"
                        " cover|are you covering> an accident?",
                    ),
                ),
                Ask(
                    "exclusions",
                    (
                        "Is the <scooter|moped> limit still {other[moped_cc]}? <Want to|Planning"
                        " to> hire one in <Bali|Corfu>",
                        "Did the <moped|motorbike> rule change from {other[moped_cc]} <this"
                        " year|at renewal>?",
                    ),
                    hinge="moped_cc",
                ),
            ),
        ),
        shared.EXCLUSION_CYBER,
        ClauseDef(
            "exc.cruise",
            "Cruises",
            "cruises",
            (
                "We will not pay any claim arising from a cruise unless endorsement END-TR-17 is"
                " shown in your schedule.",
                "With that endorsement, we will also pay for missed port departures and cabin"
                " confinement.",
            ),
            fill=4,
            code_no=18,
            versions=("2025",),
            asks=(
                Ask(
                    "exclusions",
                    (
                        "Am I covered on a <cruise|cruise holiday> <round the Med|to Norway>?",
                        "<Is a cruise|Are cruises> covered <as standard|without extra cover>?",
                    ),
                ),
            ),
        ),
    ),
)

CLAIMS = PartDef(
    "6",
    "Making a claim",
    "claims",
    (
        ClauseDef(
            "clm.medical",
            "Medical emergencies abroad",
            "a medical emergency",
            (
                {
                    "2024": "If you are taken ill or injured abroad and need to go into hospital,"
                    " you or someone acting for you must phone our 24-hour emergency assistance"
                    " service before you are admitted, or if that is not possible, within"
                    " {v[assist_hours]}.",
                    "2025": "If you are taken ill or injured abroad and need to go into hospital,"
                    " you or someone acting for you must contact our 24-hour emergency assistance"
                    " service, by phone or through the Kestrel Travel Assist app, before you are"
                    " admitted, or if that is not possible, within {v[assist_hours]}.",
                },
                "Our medical officers will decide with the treating doctor the most appropriate"
                " treatment and whether you should be moved or brought home.",
                "For outpatient treatment, pay the costs and claim them back when you return.",
            ),
            fill=5,
            lay="the medical emergency section",
            asks=(
                Ask(
                    "procedures",
                    (
                        "<Who do I call|What do I do> if I <end up in hospital|need a hospital>"
                        " <abroad|on holiday>?",
                    ),
                    supports=("cov.medical", "clm.repatriation"),
                    facts=(0,),
                ),
                Ask(
                    "procedures",
                    (
                        "Do I have to <phone you|call the assistance line> before <going to"
                        " hospital|I'm admitted>?",
                        "<do i|do we> need to <ring|call> you <first|before> <they admit|going"
                        " into> hospital <in Turkey|abroad>?",
                    ),
                    also=("cov.medical",),
                    facts=(0,),
                ),
                Ask(
                    "procedures",
                    (
                        "I went into hospital <abroad|in Portugal> without calling, is it still"
                        " {other[assist_hours]} to let you know?",
                        "How long do I have to <tell|contact> the assistance line after <being"
                        " admitted|an emergency admission>? <I thought|Is it still>"
                        " {other[assist_hours]}",
                    ),
                    supports=("cov.medical",),
                    hinge="assist_hours",
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "clm.baggage",
            "Loss, theft or damage to baggage",
            "a baggage claim",
            (
                "If baggage, money or documents are lost or stolen, you must report it to the"
                " police within 24 hours and get a written report.",
                {
                    "2024": "If baggage is lost or damaged by an airline, you must get a property"
                    " irregularity report before you leave the airport and make a written claim"
                    " to the airline within seven days.",
                    "2025": "If baggage is lost, delayed or damaged by an airline, you must get a"
                    " property irregularity report before you leave the airport and make a"
                    " written claim to the airline within seven days, or within 21 days of getting"
                    " delayed baggage back.",
                },
                "The limits are in clause {ref[lim.baggage]}.",
            ),
            fill=5,
            lay="the baggage claims section",
            asks=(
                Ask(
                    "procedures",
                    (
                        "The airline <lost|damaged> my <bag|suitcase>, what do I need <from"
                        " them|to get> before I claim?",
                        "<What's|Do I need> a <PIR|property irregularity report>?",
                    ),
                    supports=("cov.baggage", "cov.delayed_baggage"),
                    facts=(1,),
                ),
                Ask(
                    "procedures",
                    (
                        "How <soon|quickly> do I report a <theft|stolen wallet> to the police"
                        " <abroad|on holiday>?",
                        "<my|our> <purse|bag> was <pinched|snatched> <in Rome|at the market>, do I"
                        " <have to|need to> go to the police and by when?",
                    ),
                    also=("cov.money",),
                    supports=("cov.baggage",),
                    facts=(0,),
                ),
                Ask(
                    "procedures",
                    (
                        "Did the time to claim from the airline for a <late|delayed> bag"
                        " change <this year|on the new policy>?",
                        "my case came back <a week late|after 10 days>, <is it too late|am I too"
                        " late> to put in a claim with the airline?",
                    ),
                    supports=("cov.delayed_baggage",),
                    hinge="wording",
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "clm.cancellation",
            "Cancellation claims",
            "a cancellation claim",
            (
                "If you need to cancel, you must tell your travel provider immediately, as we will"
                " not pay for charges that increase because you delayed.",
                "For a claim caused by illness or injury, we will need a medical certificate from"
                " the treating doctor confirming that travel was not possible.",
                {
                    "2025": "You must also send us the cancellation invoice from your travel"
                    " provider showing the charges you cannot recover, within 30 days of"
                    " cancelling.",
                },
            ),
            fill=5,
            asks=(
                Ask(
                    "procedures",
                    (
                        "What <paperwork|proof> do you need if I cancel because I'm ill?",
                        "<what do i|what do I> <send|need to send> you <when|if> we <cancel|pull"
                        " out of> the holiday?",
                    ),
                    supports=("cov.cancellation", "clm.documents", "exc.medical"),
                    facts=(1, 2),
                ),
                Ask(
                    "procedures",
                    (
                        "<Should I|Do I have to> tell the <travel company|airline> first <before"
                        " I claim|when I cancel>?",
                    ),
                    also=("cov.cancellation",),
                    facts=(0,),
                ),
                Ask(
                    "procedures",
                    (
                        "Is there <a new|an extra> <step|form> for cancellation claims <this"
                        " year|since the renewal>?",
                        "<Do you|Do you now> need the <cancellation invoice|invoice from the travel"
                        " agent> <by a certain date|within a time limit>?",
                    ),
                    supports=("cov.cancellation", "clm.documents"),
                    hinge="wording",
                ),
            ),
        ),
        ClauseDef(
            "clm.delay",
            "Delay claims",
            "a delay claim",
            (
                "For a travel delay or missed departure claim, you must get written confirmation"
                " from the airline or carrier of the scheduled and actual departure times and the"
                " reason for the delay.",
                {
                    "2024": "You must check in for the flight or journey as planned, even if a"
                    " delay has been announced.",
                    "2025": "You must check in for the flight or journey as planned, even if a"
                    " delay has been announced, unless the carrier tells you in writing not to"
                    " travel to the departure point.",
                },
                "This applies to claims under clauses {ref[cov.delay]} and"
                " {ref[cov.missed_departure]}.",
            ),
            fill=5,
            asks=(
                Ask(
                    "procedures",
                    ("What <proof|evidence> do I need <to claim for|for> a delayed flight?",),
                    supports=("cov.delay", "lim.delay", "exc.strike"),
                    facts=(0,),
                ),
                Ask(
                    "procedures",
                    (
                        "Do I still have to check in <if the flight is already delayed|when they"
                        " say it's late>?",
                        "<the airline|easyJet> texted <to say|saying> don't come to the airport"
                        " yet, do I still <need to|have to> check in <to claim|for the delay"
                        " cover>?",
                    ),
                    supports=("cov.delay", "lim.delay", "exc.strike"),
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "clm.deadline",
            "Time limit for claims",
            "the time limit for claims",
            (
                "You must tell us about a claim within {v[claim_days]} of returning home.",
                "Claims made later may be refused if the delay prevents us from checking them.",
            ),
            fill=5,
            lay="the claims time limit",
            asks=(
                Ask(
                    "procedures",
                    (
                        "How long after <I get back|getting home> can I <claim|make a claim>?",
                        "<Is there a deadline|Is it too late> to claim <a month|six weeks> after"
                        " my holiday?",
                        "got back <in march|3 weeks ago> and havent claimed yet, <am i too"
                        " late|is that ok>?",
                    ),
                    supports=("clm.documents",),
                    facts=(0,),
                ),
                Ask(
                    "procedures",
                    (
                        "I thought I had {other[claim_days]} to claim after getting home, <is that"
                        " right|is that still the case>?",
                        "Did the <claim deadline|time limit to claim> change from"
                        " {other[claim_days]}?",
                    ),
                    hinge="claim_days",
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "clm.documents",
            "Documents and receipts",
            "documents",
            (
                {
                    "2024": "You must send us original receipts, booking invoices, tickets,"
                    " medical reports and police reports in support of your claim.",
                    "2025": "You must send us receipts, booking invoices, tickets, medical reports"
                    " and police reports in support of your claim; clear photos or scans"
                    " uploaded online are accepted, but we may ask to see the originals.",
                },
                "Keep all receipts for any expenses you claim, including taxi fares and phone"
                " calls.",
            ),
            fill=5,
            asks=(
                Ask(
                    "procedures",
                    (
                        "Can I <send|upload> <photos|scans> of my receipts or do you"
                        " <need|want> the originals?",
                        "<do i|Do I> have to post the <original|paper> receipts <now|this year>?"
                        " <last time|before> you wanted originals",
                    ),
                    hinge="wording",
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "clm.repatriation",
            "Bringing you home",
            "bringing you home",
            (
                "If our medical officer agrees, we will arrange and pay for you to be brought"
                " home, by air ambulance if medically necessary, under clause {ref[cov.medical]}.",
                "If you refuse to be moved when our medical officer says you are fit to travel,"
                " we will not pay any further medical costs.",
            ),
            fill=5,
            asks=(
                Ask(
                    "procedures",
                    (
                        "Will you <fly me home|get me home> if I'm <seriously ill|in hospital>"
                        " <abroad|on holiday>?",
                    ),
                    also=("cov.medical",),
                    supports=("clm.medical",),
                    facts=(0,),
                ),
                Ask(
                    "procedures",
                    (
                        "What if I <don't want|refuse> to be <flown home|moved> when the doctor"
                        " says I can?",
                    ),
                    supports=("cov.medical", "clm.medical"),
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "clm.recovery",
            "Recovering costs from others",
            "recovering costs",
            (
                "You must use a Global Health Insurance Card, or any reciprocal health agreement,"
                " where available, to reduce medical costs.",
                "If you are entitled to compensation from an airline, hotel or other provider,"
                " you must claim it from them first, and we will pay only the difference.",
            ),
            fill=5,
            asks=(
                Ask(
                    "procedures",
                    ("Do I have to <use|show> my <GHIC|health card> at the hospital?",),
                    supports=("lim.medical",),
                    facts=(0,),
                ),
                Ask(
                    "procedures",
                    (
                        "<Should I|Do I need to> claim from the airline before <claiming from"
                        " you|I come to you>?",
                    ),
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "clm.helpline",
            "Claims helpline",
            "the claims helpline",
            (
                "You can make a claim online or through the claims helpline shown in your"
                " schedule.",
                "The emergency assistance service is available 24 hours a day; the claims"
                " helpline is open from 8am to {v[helpline_close]} on weekdays and 9am to 5pm on"
                " {v[helpline_weekend]}.",
            ),
            fill=5,
            asks=(
                Ask(
                    "procedures",
                    ("What are the <opening hours|hours> of the <claims line|claims phone line>?",),
                    supports=("clm.medical",),
                    facts=(1,),
                ),
                Ask(
                    "procedures",
                    ("Can I <start|make> a <travel|holiday> claim <online|on the website>?",),
                    facts=(0,),
                ),
                Ask(
                    "procedures",
                    (
                        "<whats|what's> the <number|phone number> for <claims|making a claim> and"
                        " is it open <sundays|on a Sunday>?",
                    ),
                    supports=("clm.medical",),
                ),
                Ask(
                    "procedures",
                    (
                        "Does the claims line still <close|shut> at {other[helpline_close]}"
                        " <in the week|on weekdays>?",
                        "Did the claims <line|phone> hours change? I thought it"
                        " <shut|closed> at {other[helpline_close]}",
                    ),
                    hinge="helpline_close",
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "clm.virtual_gp",
            "Medical advice by video",
            "medical advice by video",
            (
                "While you are on a trip you can speak to a UK-registered GP by video call, 24"
                " hours a day and free of charge, through the Kestrel Travel Assist app.",
                "The GP can give advice and, where appropriate, a private prescription that you"
                " pay for and may claim back under clause {ref[cov.medical]}.",
                "Using this service does not replace contacting our emergency assistance service"
                " before a hospital admission, as clause {ref[clm.medical]} requires.",
            ),
            fill=4,
            versions=("2025",),
            lay="the video GP service",
            gloss="talking to a GP by video call while you are away",
            asks=(
                Ask(
                    "procedures",
                    (
                        "Can I <talk to|see> a <doctor|GP> <on a video call|over video> while I'm"
                        " <abroad|on holiday>?",
                        "<is there|do you have> a <free|24 hour> GP <service|line> <in the"
                        " app|I can use> when <I'm away|we're travelling>? <think it's new|saw it"
                        " on the renewal>",
                    ),
                    supports=("clm.medical",),
                    hinge="wording",
                    facts=(0,),
                ),
            ),
        ),
    ),
)

CONDITIONS = PartDef(
    "7",
    "General conditions",
    "conditions",
    (
        *shared.CONDITIONS,
        ClauseDef(
            "cond.health",
            "Your health",
            "your health",
            (
                "You must tell us about any pre-existing medical condition, as defined in clause"
                " {ref[def.medical_condition]}, before you buy this policy and before each trip.",
                "If your health changes between buying this policy and travelling, you must tell"
                " us, and we may change the terms of your cover.",
                "If you do not, clause {ref[exc.medical]} may apply to any claim connected with"
                " the condition.",
            ),
            fill=3,
            asks=(
                Ask(
                    "procedures",
                    (
                        "I've been <diagnosed with something|told I need an operation> since I"
                        " bought the policy, do I have to tell you?",
                        "<started|been put on> new <tablets|blood pressure meds> <after I"
                        " bought|since buying> the cover, <do I need to|should I> <let you"
                        " know|tell you>?",
                    ),
                    supports=("exc.medical", "def.medical_condition", "cond.changes"),
                    facts=(1,),
                ),
            ),
        ),
    ),
)

ABOUT = PartDef("1", "About this policy", "other", shared.ABOUT)

TRAVEL = ProductDef(
    document="travel",
    code="TR",
    title="Travel Insurance Policy Wording",
    prod="travel insurance policy",
    asset="your property",
    forms={"2024": "TR-PW-2024/01", "2025": "TR-PW-2025/01"},
    starts={"2024": "1 April 2024", "2025": "1 April 2025"},
    lay_names=(
        "my travel insurance",
        "my holiday insurance",
        "my travel policy",
        "the travel cover",
    ),
    values={
        "prev_form": ("TR-PW-2023/04", "TR-PW-2024/01"),
        "asset_lay": "my holiday",
        "war_note": "This exclusion does not apply to emergency medical expenses if war breaks"
        " out while you are abroad, for the first seven days.",
        "period_note": "For an annual multi-trip policy it is twelve months; for a single trip"
        " policy it runs from the date shown until the end of the trip.",
        "care_example": "This includes keeping your baggage, money and documents with you or"
        " locked away at all times.",
        "change_examples": "a change in the health of anyone insured, a new destination, or the"
        " trip lasting longer than planned",
        "change_lay": "<I get diagnosed with|the doctor says I have> a new medical condition",
        "cancellation_limit": ("£5,000", "£7,500"),
        "dental_limit": ("£300", "£500"),
        "standard_excess": ("£75", "£100"),
        "hospital_day": ("£25", "£30"),
        "hospital_max": ("£500", "£600"),
        "baggage_total": ("£1,500", "£2,000"),
        "baggage_single": ("£250", "£300"),
        "baggage_valuables": ("£300", "£400"),
        "delayed_baggage": ("£100", "£150"),
        "money_limit": ("£300", "£400"),
        "cash_limit": ("£250", "£300"),
        "passport_limit": ("£250", "£300"),
        "delay_benefit": ("£20", "£25"),
        "delay_max": ("£200", "£250"),
        "missed_limit": ("£500", "£750"),
        "ski_equipment": ("£500", "£600"),
        "home_nights": ("two nights", "one night"),
        "medical_lookback": ("two years", "five years"),
        "trip_days": ("31 days", "45 days"),
        "dive_depth": ("30 metres", "40 metres"),
        "moped_cc": ("50cc", "125cc"),
        "assist_hours": ("48 hours", "24 hours"),
        "claim_days": ("28 days", "60 days"),
        "helpline_close": ("8pm", "9pm"),
        "helpline_weekend": ("Saturdays", "Saturdays and Sundays"),
    },
    endorsements=(
        Endorsement("END-TR-05", "Winter sports", "cov.winter_sports", ("lim.winter_sports",)),
        Endorsement("END-TR-09", "Excess waiver", "lim.excess"),
        Endorsement("END-TR-14", "Travel provider insolvency", "exc.insolvency"),
        Endorsement("END-TR-17", "Cruise cover", "exc.cruise"),
    ),
    parts=(ABOUT, DEFINITIONS, COVER, LIMITS, EXCLUSIONS, CLAIMS, CONDITIONS),
)
